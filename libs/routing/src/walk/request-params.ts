// The URL parameters of one request: the link's query, then the params given apart (which win).

/** Parameter names never copied into a buffer (they would change an object's prototype). */
const UNSAFE = '__proto__';

export function requestParams(url: string | undefined, params: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (url) {
    const question = url.indexOf('?');
    if (question >= 0) {
      const hash = url.indexOf('#', question);
      for (const [name, value] of new URLSearchParams(url.slice(question + 1, hash < 0 ? undefined : hash))) if (name !== UNSAFE) out[name] = value;
    }
  }
  if (params) {
    for (const name of Object.keys(params)) {
      const value = params[name];
      if (name !== UNSAFE && typeof value === 'string') out[name] = value;
    }
  }
  return out;
}

/** The session's URL buffer with the request's params joined (the latest value of each); the same object when there are none. */
export function joinBuffer(buffer: Readonly<Record<string, string>>, params: Record<string, string>): Record<string, string> {
  for (const _ in params) return { ...buffer, ...params };
  return buffer as Record<string, string>;
}
