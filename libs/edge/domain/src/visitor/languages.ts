import { UNKNOWN } from './unknown';

export interface LanguageAttributes {
  /** The preferred language's primary subtag, lower case: `en`. */
  mainLanguage: string;
  /** The preferred language tag as the browser sent it, in canonical case: `en-US`, `zh-Hant-TW`. */
  browserLanguage: string;
}

export const UNKNOWN_LANGUAGES: LanguageAttributes = Object.freeze({ mainLanguage: UNKNOWN, browserLanguage: UNKNOWN });

/** How much of Accept-Language is read, and how many of its entries. */
export const MAX_ACCEPT_LANGUAGE_LENGTH = 256;
const MAX_ENTRIES = 16;

const TAG = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;
const QUALITY = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i;

/**
 * The visitor's languages from Accept-Language (`en-US,en;q=0.9,de;q=0.8`): the entry of highest
 * quality (the first of equals; `*` and q=0 never), within the first 256 characters and 16 entries.
 * `unknown` for both when there is no usable entry.
 */
export function languagesOf(acceptLanguage: string | undefined): LanguageAttributes {
  if (!acceptLanguage) return UNKNOWN_LANGUAGES;
  const entries = acceptLanguage.slice(0, MAX_ACCEPT_LANGUAGE_LENGTH).split(',', MAX_ENTRIES);
  let best: string | undefined;
  let bestQuality = 0;
  for (const entry of entries) {
    const [rawTag, ...parameters] = entry.split(';');
    const tag = rawTag.trim();
    if (!TAG.test(tag)) continue;
    const quality = qualityOf(parameters);
    if (quality > bestQuality) {
      best = tag;
      bestQuality = quality;
      if (quality === 1) break;
    }
  }
  if (best === undefined) return UNKNOWN_LANGUAGES;
  const browserLanguage = canonicalTag(best);
  return { mainLanguage: browserLanguage.split('-', 1)[0], browserLanguage };
}

/** The q parameter (1 when absent; 0 when malformed, so a broken entry is never preferred). */
function qualityOf(parameters: string[]): number {
  for (const parameter of parameters) {
    if (!/^\s*q\s*=/i.test(parameter)) continue;
    const match = QUALITY.exec(parameter);
    const value = match ? Number(match[1]) : 0;
    return value <= 1 ? value : 0;
  }
  return 1;
}

/** BCP 47 case conventions: language lower, script title, region upper, the rest lower (`EN-us` -> `en-US`). */
function canonicalTag(tag: string): string {
  return tag
    .split('-')
    .map((part, index) => {
      if (index === 0) return part.toLowerCase();
      if (part.length === 2 && /^[A-Za-z]{2}$/.test(part)) return part.toUpperCase();
      if (part.length === 4 && /^[A-Za-z]{4}$/.test(part)) return part[0].toUpperCase() + part.slice(1).toLowerCase();
      return part.toLowerCase();
    })
    .join('-');
}
