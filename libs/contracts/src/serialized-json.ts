/**
 * An answer already serialized as JSON (a record as find/byId shows it, made once per revision, or a
 * list of such records joined as text). In one
 * process it is handed through the transport as it is and the gateway writes its text unchanged;
 * across processes (NATS) it serializes as the value it holds, so a caller always sees that value.
 */
export class SerializedJson {
  private encoded?: Buffer;

  constructor(readonly json: string) {}

  /** The JSON array of `items`, their texts joined as they are (none of them parsed or serialized again). */
  static array(items: readonly SerializedJson[]): SerializedJson {
    return new SerializedJson(`[${items.map((item) => item.json).join(',')}]`);
  }

  /** The text as UTF-8, encoded once: writing a string to a socket encodes it again on every write. */
  get bytes(): Buffer {
    return (this.encoded ??= Buffer.from(this.json, 'utf8'));
  }

  /** The value the text holds (parsed on each call). */
  value<T = unknown>(): T {
    return JSON.parse(this.json) as T;
  }

  toJSON(): unknown {
    return this.value();
  }
}

/** A reply's value, whether it came serialized (in one process) or parsed (over NATS). */
export function jsonValue<T = unknown>(reply: unknown): T {
  return (reply instanceof SerializedJson ? reply.value() : reply) as T;
}
