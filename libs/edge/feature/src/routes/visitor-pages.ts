// The few HTML pages the edge shows a visitor instead of a redirect. They name what went wrong in the
// visitor's words and never an internal (no ids, no stack, no store).

/** The edge's answer to a visitor request, before it is written. */
export interface VisitorAnswer {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

const HTML = 'text/html; charset=utf-8';
/** Every visitor answer: not cached (each click is counted), not indexed, not framed. */
const COMMON = { 'cache-control': 'no-store', 'x-robots-tag': 'noindex, nofollow', 'x-content-type-options': 'nosniff' };

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function page(status: number, title: string, message: string, extraHeaders: Record<string, string> = {}): VisitorAnswer {
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex, nofollow">' +
    `<title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
  return { status, headers: { ...COMMON, 'content-type': HTML, 'x-frame-options': 'DENY', ...extraHeaders }, body };
}

/** An unknown, malformed or retired link, or a walk that led nowhere. */
export function notFoundPage(message = 'This link does not lead anywhere. It may be mistyped, or no longer in use.'): VisitorAnswer {
  return page(404, 'Link not found', message);
}

/** A HEAD of a link that leads somewhere (see VisitorLinks.probe): no body, nothing counted. */
export function probePage(): VisitorAnswer {
  return { status: 200, headers: { ...COMMON, 'content-type': HTML } };
}

/** A request the edge does not take (too long, malformed). */
export function badRequestPage(status: number, message: string): VisitorAnswer {
  return page(status, status === 414 ? 'Link too long' : 'Bad request', message);
}

/** The edge could not keep what the click needs (hits or session): nothing was answered as done; try again. */
export function unavailablePage(): VisitorAnswer {
  return page(503, 'Please try again', 'This link is briefly unavailable. Please try again in a moment.', { 'retry-after': '1' });
}

/** A redirect with the given status; `url` is a valid header value (see locationOf). */
export function redirectAnswer(status: 301 | 302 | 307, url: string): VisitorAnswer {
  // Every redirect answers these: a literal (COMMON's headers and the location) rather than a copy of COMMON.
  return {
    status,
    headers: {
      'cache-control': COMMON['cache-control'],
      'x-robots-tag': COMMON['x-robots-tag'],
      'x-content-type-options': COMMON['x-content-type-options'],
      location: url,
    },
  };
}

/**
 * The `umr` redirect type: a 200 page that moves on at once by meta refresh (and a script, and a
 * link), sending no Referer to the destination: the destination sees neither the tracking link nor
 * the page before it.
 */
export function metaRefreshAnswer(url: string): VisitorAnswer {
  const href = escapeHtml(url);
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta name="robots" content="noindex, nofollow">' +
    `<meta http-equiv="refresh" content="0;url=${href}"><title>Redirecting</title></head>` +
    `<body><p><a href="${href}" rel="noreferrer noopener">Continue</a></p></body></html>`;
  return { status: 200, headers: { ...COMMON, 'content-type': HTML, 'referrer-policy': 'no-referrer' }, body };
}

/**
 * A destination URL as a Location header can carry it: as given when it is plain ASCII without
 * controls or spaces, else as the URL parser writes it (percent-encoded, punycode host); undefined
 * when it is no http(s) URL at all.
 */
export function locationOf(url: string): string | undefined {
  if (/^[\x21-\x7e]*$/.test(url) && /^https?:\/\//i.test(url)) return url;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}
