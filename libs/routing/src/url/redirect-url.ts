// Redirect URLs: a page's base URL (or an external URL node's URL) with its tokens replaced, then,
// in this order, the offer source's query params (offers), the session's URL params
// (accumulateUrlParams; never one the URL already names) and `vid=<visitor id>` (replacing any vid
// the URL had). Templates are parsed once, when the funnel is compiled.
import * as template from './template';
import type { Segment } from './template';

import type { TokenContext } from './tokens';

// Bound once: compiled imports read another module's exports through getters, on every call otherwise.
const { parseTemplate, render } = template;

export const VISITOR_PARAM = 'vid';

/** A URL ready to render: the part before the fragment (its own `vid` removed) and the fragment. */
export interface UrlTemplate {
  readonly main: readonly Segment[];
  readonly fragment: readonly Segment[];
  /** Whether the URL has a query (`?`). */
  readonly hasQuery: boolean;
  /** Whether it ends in `?` or `&` (the next parameter needs no separator). */
  readonly open: boolean;
  /** The query parameter names the URL holds (decoded). */
  readonly names: ReadonlySet<string>;
}

/** An offer source's query params, appended to its offers' URLs. */
export interface OfferQuery {
  /** `name=value&...`: names and literal text URL-encoded, `{tokens}` kept. */
  readonly segments: readonly Segment[];
  readonly names: ReadonlySet<string>;
  /** How the params join a URL without a query: `?` (the usual) or `&` (a network whose links take parameters so). */
  readonly separator: string;
}

export function compileUrlTemplate(url: string): UrlTemplate {
  const hash = url.indexOf('#');
  let main = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? '' : url.slice(hash);
  const question = main.indexOf('?');
  const names = new Set<string>();
  if (question >= 0) {
    const kept = main
      .slice(question + 1)
      .split('&')
      .filter((part) => part === '' || paramName(part) !== VISITOR_PARAM);
    const query = kept.join('&');
    for (const name of new URLSearchParams(query).keys()) names.add(name);
    main = `${main.slice(0, question + 1)}${query}`;
  }
  return {
    main: parseTemplate(main),
    fragment: parseTemplate(fragment),
    hasQuery: question >= 0,
    open: main.endsWith('?') || main.endsWith('&'),
    names,
  };
}

function paramName(part: string): string {
  const equals = part.indexOf('=');
  return new URLSearchParams(`${equals < 0 ? part : part.slice(0, equals)}=`).keys().next().value ?? '';
}

export function compileOfferQuery(queryParams: unknown, separator: unknown): OfferQuery | null {
  if (typeof queryParams !== 'object' || queryParams === null) return null;
  const entries = Object.entries(queryParams as Record<string, unknown>).filter(([name, value]) => name !== '' && typeof value === 'string');
  if (entries.length === 0) return null;
  const text = entries.map(([name, value]) => `${name}=${value as string}`);
  const segments: Segment[] = [];
  text.forEach((pair, i) => {
    const equals = pair.indexOf('=');
    segments.push(`${i > 0 ? '&' : ''}${encodeURIComponent(pair.slice(0, equals))}=`, ...parseTemplate(pair.slice(equals + 1), true));
  });
  return { segments, names: new Set(entries.map(([name]) => name)), separator: separator === '&' ? '&' : '?' };
}

export interface RedirectOptions {
  offer?: OfferQuery | null;
  /** URL params to pass on (accumulateUrlParams), or null. */
  passOn?: Readonly<Record<string, string>> | null;
}

/** The redirect URL of a template for one walk. */
export function buildRedirectUrl(template: UrlTemplate, context: TokenContext, options: RedirectOptions = {}): string {
  let url = render(template.main, context);
  const offer = options.offer ?? null;
  let separator = template.open ? '' : template.hasQuery ? '&' : (offer?.separator ?? '?');
  if (offer !== null) {
    url += separator + render(offer.segments, context);
    separator = '&';
  }
  const passOn = options.passOn;
  if (passOn) {
    for (const name in passOn) {
      if (name === VISITOR_PARAM || template.names.has(name) || offer?.names.has(name) || !Object.prototype.hasOwnProperty.call(passOn, name)) continue;
      url += `${separator}${encodeURIComponent(name)}=${encodeURIComponent(passOn[name])}`;
      separator = '&';
    }
  }
  url += `${separator}${VISITOR_PARAM}=${encodeURIComponent(context.visitorId)}`;
  return template.fragment.length === 0 ? url : url + render(template.fragment, context);
}
