const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const TEXT_ENCODER = new TextEncoder();

/**
 * An answer already serialized as JSON (a record as find/byId shows it, made once per revision, or a
 * list of such records joined as they are). In one process it is handed through the transport as it
 * is and the gateway writes its bytes unchanged; across processes (NATS) it serializes as the value
 * it holds, so a caller always sees that value.
 */
export class SerializedJson {
  private text?: string;
  private encoded?: Buffer;

  /** From JSON text (encoded to UTF-8 once, when its bytes are first asked for). */
  constructor(json: string) {
    this.text = json;
  }

  /** From UTF-8 bytes of JSON text (decoded whenever its text is asked for: it keeps only the bytes). */
  static fromBytes(bytes: Buffer): SerializedJson {
    const serialized = new SerializedJson('');
    serialized.text = undefined;
    serialized.encoded = bytes;
    return serialized;
  }

  /**
   * `value` serialized, kept as UTF-8 bytes only, in a buffer of its own (not a slice of Node's
   * shared pool, which a long-kept small buffer would keep whole).
   */
  static of(value: unknown): SerializedJson {
    const encoded = TEXT_ENCODER.encode(JSON.stringify(value));
    return SerializedJson.fromBytes(Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength));
  }

  /**
   * The JSON array of `items`, as one buffer of their bytes joined by commas (each item's bytes are
   * encoded once and kept by the item: none of them is parsed, serialized or encoded again, and no
   * text of the whole array is made).
   */
  static array(items: readonly SerializedJson[]): SerializedJson {
    let length = items.length > 1 ? items.length + 1 : 2;
    for (let i = 0; i < items.length; i++) length += items[i].bytes.length;
    const out = Buffer.allocUnsafe(length);
    out[0] = OPEN_BRACKET;
    let at = 1;
    for (let i = 0; i < items.length; i++) {
      if (i > 0) out[at++] = COMMA;
      const bytes = items[i].bytes;
      out.set(bytes, at);
      at += bytes.length;
    }
    out[at] = CLOSE_BRACKET;
    return SerializedJson.fromBytes(out);
  }

  /** The JSON text. */
  get json(): string {
    return this.text ?? this.encoded!.toString('utf8');
  }

  /** The text as UTF-8, encoded once: writing a string to a socket encodes it again on every write. */
  get bytes(): Buffer {
    return (this.encoded ??= Buffer.from(this.text!, 'utf8'));
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
