import type { ErrorDetail } from './errors';

/** At most this many bytes of text (message, and each detail's field, code and message) in one error. */
export const ERROR_TEXT_MAX_BYTES = 1024;
/** At most this many details in one error; a request with more problems gets the first ones. */
export const ERROR_MAX_DETAILS = 20;

const MESSAGE_MAX_BYTES = 320;
const FIELD_MAX_BYTES = 128;
const CODE_MAX_BYTES = 64;
const DETAIL_MESSAGE_MAX_BYTES = 256;
const ELLIPSIS = '…';

/** `text` cut to at most `maxBytes` UTF-8 bytes, ending with an ellipsis when it was cut. */
export function truncateUtf8(text: string, maxBytes: number): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most texts need no measuring.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return text;
  let cut = Buffer.from(text, 'utf8')
    .subarray(0, maxBytes - Buffer.byteLength(ELLIPSIS))
    .toString('utf8');
  // A multi-byte character split at the cut decodes as U+FFFD: drop it.
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return cut + ELLIPSIS;
}

/**
 * An error's message and details, bounded: each text is cut to its own limit, and details are kept
 * in order while all texts together stay within ERROR_TEXT_MAX_BYTES. Values a client sent end up in
 * messages ("unknown permission x"), so this is what keeps an error from echoing a request back
 * (a 700 KB body once gave a 5.7 MB error).
 */
export function boundErrorText(message: string, details: readonly ErrorDetail[]): { message: string; details: ErrorDetail[] } {
  const boundedMessage = truncateUtf8(message, MESSAGE_MAX_BYTES);
  let used = Buffer.byteLength(boundedMessage);
  const kept: ErrorDetail[] = [];
  for (const detail of Array.isArray(details) ? details : []) {
    if (kept.length === ERROR_MAX_DETAILS) break;
    const bounded: ErrorDetail = {
      field: truncateUtf8(String(detail?.field ?? ''), FIELD_MAX_BYTES),
      code: truncateUtf8(String(detail?.code ?? ''), CODE_MAX_BYTES),
      message: truncateUtf8(String(detail?.message ?? ''), DETAIL_MESSAGE_MAX_BYTES),
    };
    // A script diagnostic's position is kept (numbers only: nothing a client sent).
    if (Number.isInteger(detail?.line) && Number.isInteger(detail?.column)) {
      bounded.line = detail.line;
      bounded.column = detail.column;
    }
    used += Buffer.byteLength(bounded.field) + Buffer.byteLength(bounded.code) + Buffer.byteLength(bounded.message);
    if (used > ERROR_TEXT_MAX_BYTES) break;
    kept.push(bounded);
  }
  return { message: boundedMessage, details: kept };
}
