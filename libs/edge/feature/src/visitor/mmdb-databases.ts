import { open, type Reader, type Response } from 'maxmind';
import type { ClientAddress } from '@funnel/edge-domain';

/**
 * MaxMind-format databases read together: each file is loaded into memory once (maxmind's reader),
 * then every lookup is a synchronous walk of the search trees. An IPv4 address is looked up in every
 * database (IPv6 databases hold the IPv4 space too), an IPv6 address in the IPv6 ones only.
 */
export class MmdbDatabases {
  private constructor(
    private readonly ipv4: readonly Reader<Response>[],
    private readonly ipv6: readonly Reader<Response>[],
  ) {}

  /** Opens the files; rejects with the file's name when one is missing or not a MaxMind database. */
  static async open(variable: string, files: readonly string[]): Promise<MmdbDatabases> {
    const readers = await Promise.all(
      files.map((file) =>
        open(file).catch((error: Error) => {
          throw new Error(`${variable}: cannot open ${JSON.stringify(file)} as a MaxMind database: ${error.message}`);
        }),
      ),
    );
    const byVersion = (version: number) => readers.filter((reader) => reader.metadata.ipVersion === version);
    return new MmdbDatabases([...byVersion(4), ...byVersion(6)], byVersion(6));
  }

  get size(): number {
    return this.ipv4.length + this.ipv6.filter((reader) => !this.ipv4.includes(reader)).length;
  }

  /** The first record any database holds for the address; null when none does (or the address is none). */
  first(address: ClientAddress): Response | null {
    const readers = address.kind === 'ipv4' ? this.ipv4 : address.kind === 'ipv6' ? this.ipv6 : [];
    for (const reader of readers) {
      const record = reader.get(address.ip);
      if (record) return record;
    }
    return null;
  }

  /** Every database's record for the address, in the order given. */
  all(address: ClientAddress): Response[] {
    const readers = address.kind === 'ipv4' ? this.ipv4 : address.kind === 'ipv6' ? this.ipv6 : [];
    const records: Response[] = [];
    for (const reader of readers) {
      const record = reader.get(address.ip);
      if (record) records.push(record);
    }
    return records;
  }
}
