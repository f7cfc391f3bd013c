import dns2 from 'dns2';
import { cleanUpLater } from './cleanup';

const { Packet } = dns2;
/** RFC 1035 RCODE 3 (dns2's typings lack Packet.RCODE). */
const NXDOMAIN = 3;

/** The records of one name: addresses (A, AAAA) and TXT strings. */
export interface DnsRecords {
  A?: string[];
  AAAA?: string[];
  TXT?: string[];
}

export interface RunningDnsServer {
  /** `127.0.0.1:<port>`, as DNS_SERVERS lists a server. */
  address: string;
  /** The zone it answers from, by lower-case name; change it at will. Other names are NXDOMAIN. */
  records: Map<string, DnsRecords>;
  close(): Promise<void>;
}

/** A local DNS server (UDP, dns2) answering A, AAAA and TXT questions from `records`. */
export async function startDnsServer(records: Map<string, DnsRecords> = new Map()): Promise<RunningDnsServer> {
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const found = records.get(question.name.toLowerCase());
      // Plain records: dns2 encodes them by type (its typings want Resource instances).
      const answers = response.answers as unknown as Record<string, unknown>[];
      const answer = (type: number, value: Record<string, unknown>) => answers.push({ name: question.name, type, class: Packet.CLASS.IN, ttl: 1, ...value });
      if (!found) response.header.rcode = NXDOMAIN;
      else if (question.type === Packet.TYPE.A) for (const address of found.A ?? []) answer(Packet.TYPE.A, { address });
      else if (question.type === Packet.TYPE.AAAA) for (const address of found.AAAA ?? []) answer(Packet.TYPE.AAAA, { address });
      else if (question.type === Packet.TYPE.TXT) for (const data of found.TXT ?? []) answer(Packet.TYPE.TXT, { data });
      void send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await server.close();
  };
  cleanUpLater(close);
  return { address: `127.0.0.1:${addresses.udp!.port}`, records, close };
}
