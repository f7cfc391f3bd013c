/** `{token}` placeholders a tracker replaces at click time. */
const TOKEN = /\{[A-Za-z0-9_.-]{1,64}\}/g;

/**
 * An absolute http(s) URL once its `{tokens}` are filled in. `tokensIn: 'query'` allows them
 * only after the `?` (a page's base URL); `'anywhere'` also in the path and host (a postback URL).
 */
export function isHttpUrlWithTokens(text: string, tokensIn: 'query' | 'anywhere'): boolean {
  if (tokensIn === 'query') {
    const queryStart = text.indexOf('?');
    const beforeQuery = queryStart < 0 ? text : text.slice(0, queryStart);
    if (beforeQuery.includes('{') || beforeQuery.includes('}')) return false;
  }
  const filled = text.replace(TOKEN, 'token');
  if (/[{}\s]/.test(filled)) return false;
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;

/** A bare host name (`track.example.com`): no scheme, port, path or IP address; at least two labels. */
export function isBareHostName(text: string): boolean {
  if (text.length > 253) return false;
  const labels = text.split('.');
  if (labels.length < 2 || !labels.every((label) => HOST_LABEL.test(label))) return false;
  return !/^\d+$/.test(labels[labels.length - 1]);
}
