import { type MsgHdrs, type NatsConnection, headers as natsHeaders } from 'nats';

/**
 * Messages larger than the NATS server's max payload travel as chunks. Small messages carry no
 * header and cost nothing extra; a chunked one carries its position on every chunk:
 *
 * - a reply is published as n chunks on the reply subject, each with `Funnel-Chunk: i/n`;
 * - a request sends its first chunk to the service subject with `Funnel-Chunk: 1/n` and
 *   `Funnel-Upload: <upload id>`; the instance that receives it answers on the reply subject with
 *   an empty message carrying `Funnel-Upload-To: <subject of that instance>`, where the caller then
 *   sends chunks 2..n (same upload id, same reply subject). The queue group picks one instance for
 *   the first chunk, and the rest must reach that same instance.
 *
 * Either side refuses a message over its configured bound (`RPC_MAX_MESSAGE_BYTES`).
 */
export const CHUNK_HEADER = 'Funnel-Chunk';
export const UPLOAD_HEADER = 'Funnel-Upload';
export const UPLOAD_TO_HEADER = 'Funnel-Upload-To';

export const DEFAULT_RPC_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** NATS's default max payload, assumed until the server's INFO says otherwise. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
/** Room left under max payload for the headers of a chunk. */
const HEADER_ROOM_BYTES = 4096;
const MIN_CHUNK_BYTES = 1024;

/** The largest chunk body this connection's server accepts, read from its INFO (`max_payload`). */
export function chunkLimitOf(nc: NatsConnection): number {
  const maxPayload = nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
  return Math.max(MIN_CHUNK_BYTES, maxPayload - HEADER_ROOM_BYTES);
}

/** Views into `data` of at most `limit` bytes each (no copy). */
export function splitIntoChunks(data: Uint8Array, limit: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < data.length; offset += limit) chunks.push(data.subarray(offset, offset + limit));
  return chunks;
}

export function chunkHeaders(index: number, count: number, uploadId?: string): MsgHdrs {
  const headers = natsHeaders();
  headers.set(CHUNK_HEADER, `${index}/${count}`);
  if (uploadId) headers.set(UPLOAD_HEADER, uploadId);
  return headers;
}

export interface ChunkPosition {
  /** 1-based. */
  index: number;
  count: number;
}

const POSITION = /^(\d{1,9})\/(\d{1,9})$/;

/** The `Funnel-Chunk` position of a message; undefined when it is whole (or the header is malformed). */
export function chunkPositionOf(headers: MsgHdrs | undefined): ChunkPosition | undefined {
  if (!headers) return undefined;
  const match = POSITION.exec(headers.get(CHUNK_HEADER));
  if (!match) return undefined;
  const index = Number(match[1]);
  const count = Number(match[2]);
  return index >= 1 && index <= count ? { index, count } : undefined;
}

/** A message that is, or would be once assembled, larger than the bound. */
export class MessageTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`message larger than ${maxBytes} bytes`);
  }
}

/** Collects the chunks of one message, in any order, up to `maxBytes` in all. */
export class ChunkAssembly {
  private readonly chunks = new Map<number, Uint8Array>();
  private bytes = 0;

  constructor(
    readonly count: number,
    private readonly maxBytes: number,
  ) {}

  /** Adds chunk `index` (1-based); answers the whole message once every chunk is in. */
  add(index: number, data: Uint8Array): Uint8Array | undefined {
    if (index < 1 || index > this.count || this.chunks.has(index)) return undefined;
    this.bytes += data.length;
    if (this.bytes > this.maxBytes) throw new MessageTooLargeError(this.maxBytes);
    // nats.js hands out views into its read buffer: keep a copy.
    this.chunks.set(index, data.slice());
    if (this.chunks.size < this.count) return undefined;
    const whole = new Uint8Array(this.bytes);
    let offset = 0;
    for (let i = 1; i <= this.count; i++) {
      const chunk = this.chunks.get(i) as Uint8Array;
      whole.set(chunk, offset);
      offset += chunk.length;
    }
    this.chunks.clear();
    return whole;
  }
}
