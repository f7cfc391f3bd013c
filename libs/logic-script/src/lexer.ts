// Go's lexical grammar, restricted to what a routing script can use, plus enough of the rest (every Go
// operator, rune and float literals) to name what the author wrote when rejecting it.
import { DiagnosticBag } from './diagnostics';

export type TokenKind = 'ident' | 'keyword' | 'int' | 'string' | 'op' | 'semi' | 'bad' | 'eof';

export interface Token {
  kind: TokenKind;
  /** Source text for identifiers, keywords and operators; the decoded value for strings. */
  text: string;
  /** Integer value of an int token: a number when it is a safe integer, else a bigint (see integerValue). */
  value: number | bigint;
  line: number;
  column: number;
  /** Semicolon inserted by the newline rule rather than written. */
  auto: boolean;
}

export const GO_KEYWORDS: ReadonlySet<string> = new Set([
  'break',
  'case',
  'chan',
  'const',
  'continue',
  'default',
  'defer',
  'else',
  'fallthrough',
  'for',
  'func',
  'go',
  'goto',
  'if',
  'import',
  'interface',
  'map',
  'package',
  'range',
  'return',
  'select',
  'struct',
  'switch',
  'type',
  'var',
]);

// Keywords by first letter, so that recognising one compares characters instead of hashing every word.
const KEYWORDS_BY_FIRST_CHAR = new Map<number, string[]>();
for (const keyword of GO_KEYWORDS) {
  const first = keyword.charCodeAt(0);
  KEYWORDS_BY_FIRST_CHAR.set(first, [...(KEYWORDS_BY_FIRST_CHAR.get(first) ?? []), keyword]);
}

function isKeywordAt(source: string, start: number, end: number): boolean {
  const candidates = KEYWORDS_BY_FIRST_CHAR.get(source.charCodeAt(start));
  if (!candidates) return false;
  for (const keyword of candidates) if (keyword.length === end - start && source.startsWith(keyword, start)) return true;
  return false;
}

// Longest first within each starting character, so the first match is the longest.
const OPERATORS = [
  '<<=',
  '>>=',
  '&^=',
  '...',
  '&&',
  '||',
  '<-',
  '++',
  '--',
  '==',
  '!=',
  '<=',
  '>=',
  ':=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '<<',
  '>>',
  '&^',
  '+',
  '-',
  '*',
  '/',
  '%',
  '&',
  '|',
  '^',
  '<',
  '>',
  '=',
  '!',
  '~',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  '.',
  ':',
];
const OPERATORS_BY_FIRST_CHAR = new Map<number, string[]>();
for (const op of OPERATORS) {
  const first = op.charCodeAt(0);
  const list = OPERATORS_BY_FIRST_CHAR.get(first) ?? [];
  list.push(op);
  OPERATORS_BY_FIRST_CHAR.set(first, list);
}

/** Tokens after which a newline ends the statement (Go spec, "Semicolons"). */
function endsStatement(token: Token): boolean {
  switch (token.kind) {
    case 'ident':
    case 'int':
    case 'string':
    case 'bad':
      return true;
    case 'keyword':
      return token.text === 'break' || token.text === 'continue' || token.text === 'fallthrough' || token.text === 'return';
    case 'op':
      return token.text === ')' || token.text === ']' || token.text === '}' || token.text === '++' || token.text === '--';
    default:
      return false;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
};

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;
const strictUtf8Decoder = new TextDecoder('utf-8', { fatal: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isAsciiLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function isDecimalDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isHexDigit(c: number): boolean {
  return isDecimalDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

function describeCharacter(cp: number): string {
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  if (cp === 0xa0) return `${hex} (non-breaking space)`;
  if (cp === 0x201c || cp === 0x201d) return `${hex} (curly quote; use a straight ")`;
  if (cp === 0x2018 || cp === 0x2019) return `${hex} (curly quote; use a straight ")`;
  if (cp < 0x20 || cp === 0x7f) return `${hex} (control character)`;
  return `'${String.fromCodePoint(cp)}' (${hex})`;
}

const BASE_NAMES: Readonly<Record<string, string>> = { x: 'hexadecimal', o: 'octal', b: 'binary' };
const DIGITS_OF_BASE: Readonly<Record<string, RegExp>> = { x: /[0-9a-f]/, o: /[0-7]/, b: /[01]/ };

/**
 * Why a number-like token is not a Go integer literal (decimal, 0x hex, 0o or 0-prefixed octal, 0b
 * binary, with _ between digits), or null when it is one. Fractions, exponents and imaginary numbers
 * are Go, but not integers: the language has no other number type.
 */
export function integerLiteralProblem(text: string): string | null {
  const lower = text.toLowerCase();
  if (lower.endsWith('i')) return `${text}: imaginary numbers are not supported; the only number type is int`;
  const prefix = /^0[xob]/.test(lower) ? lower[1] : null;
  const body = prefix ? lower.slice(2) : lower;
  const fractional =
    prefix === null
      ? /^[0-9_]*(\.[0-9_]*)?(e[+-]?[0-9_]*)?$/.test(body) && /[.e]/.test(body)
      : prefix === 'x'
        ? /^[0-9a-f_]*(\.[0-9a-f_]*)?(p[+-]?[0-9_]*)?$/.test(body) && /[.p]/.test(body)
        : body.includes('.');
  if (fractional) return `${text}: only whole numbers are supported (no fractions or exponents); the only number type is int`;
  if (prefix) {
    const base = BASE_NAMES[prefix];
    if (!/[0-9a-z]/.test(body)) return `${text}: ${base} literal has no digits`;
    const wrong = [...body].find((ch) => ch !== '_' && !DIGITS_OF_BASE[prefix].test(ch));
    if (wrong) return `${text}: invalid digit '${wrong}' in ${base} literal`;
    if (!/^_?[0-9a-f]+(_[0-9a-f]+)*$/.test(body)) return `${text}: '_' must separate successive digits`;
    return null;
  }
  const letter = /[a-z]/i.exec(text);
  if (letter) return `${text}: invalid character '${letter[0]}' in a number; integers are decimal, or 0x hex, 0o octal, 0b binary`;
  if (!/^[0-9]+(_[0-9]+)*$/.test(text)) return `${text}: '_' must separate successive digits`;
  const octalDigit = text.length > 1 && text.charCodeAt(0) === 48 ? /[89]/.exec(text) : null;
  if (octalDigit) {
    const decimal = text.replace(/^[0_]+/, '') || '0';
    return `${text}: invalid digit '${octalDigit[0]}' in octal literal (a leading 0 makes Go read the number as octal; write ${decimal})`;
  }
  return null;
}

/**
 * The value of a valid integer literal: a number when it is a safe integer (|n| <= 2^53-1), else a
 * bigint. Every int value of the language keeps this form, so equal values are always === equal.
 */
export function integerValue(text: string): number | bigint {
  const digits = text.replace(/_/g, '');
  const big = /^0[0-7]+$/.test(digits) ? BigInt(`0o${digits.slice(1)}`) : BigInt(digits);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

export function tokenize(source: string, diagnostics: DiagnosticBag): Token[] {
  const tokens: Token[] = [];
  const length = source.length;
  let pos = source.charCodeAt(0) === 0xfeff ? 1 : 0; // a leading byte-order mark is ignored, as in Go
  let line = 1;
  let lineStart = 0;
  let last: Token | null = null;

  const push = (kind: TokenKind, text: string, value: number | bigint, tokenLine: number, column: number): void => {
    last = { kind, text, value, line: tokenLine, column, auto: false };
    tokens.push(last);
  };
  const insertSemicolon = (atLine: number, atColumn: number): void => {
    if (last !== null && endsStatement(last)) {
      last = { kind: 'semi', text: ';', value: 0, line: atLine, column: atColumn, auto: true };
      tokens.push(last);
    }
  };

  while (pos < length) {
    const c = source.charCodeAt(pos);
    const column = pos - lineStart + 1;

    if (c === 10) {
      insertSemicolon(line, column);
      pos++;
      line++;
      lineStart = pos;
      continue;
    }
    if (c === 32 || c === 9 || c === 13) {
      pos++;
      continue;
    }

    if (c === 47 && source.charCodeAt(pos + 1) === 47) {
      // Line comment: the newline that ends it is lexed normally, so it still ends the statement.
      const end = source.indexOf('\n', pos);
      pos = end < 0 ? length : end;
      continue;
    }
    if (c === 47 && source.charCodeAt(pos + 1) === 42) {
      const end = source.indexOf('*/', pos + 2);
      const stop = end < 0 ? length : end + 2;
      const startLine = line;
      let sawNewline = false;
      for (let i = pos; i < stop; i++) {
        if (source.charCodeAt(i) === 10) {
          sawNewline = true;
          line++;
          lineStart = i + 1;
        }
      }
      // A general comment spanning lines acts like a newline (Go spec).
      if (sawNewline) insertSemicolon(startLine, column);
      if (end < 0) diagnostics.error('UNTERMINATED_COMMENT', { line: startLine, column }, 'comment not terminated: add */');
      pos = stop;
      continue;
    }

    if (isAsciiLetter(c) || (c > 127 && LETTER.test(String.fromCodePoint(source.codePointAt(pos) as number)))) {
      const start = pos;
      pos += c > 0xffff ? 2 : 1;
      while (pos < length) {
        const d = source.charCodeAt(pos);
        if (isAsciiLetter(d) || isDecimalDigit(d)) pos++;
        else if (d > 127) {
          const cp = source.codePointAt(pos) as number;
          const ch = String.fromCodePoint(cp);
          if (!LETTER.test(ch) && !DIGIT.test(ch)) break;
          pos += ch.length;
        } else break;
      }
      push(isKeywordAt(source, start, pos) ? 'keyword' : 'ident', source.slice(start, pos), 0, line, column);
      continue;
    }

    if (isDecimalDigit(c) || (c === 46 && isDecimalDigit(source.charCodeAt(pos + 1)))) {
      pos = lexNumber(pos, column);
      continue;
    }

    if (c === 34) {
      pos = lexInterpretedString(pos, column);
      continue;
    }
    if (c === 96) {
      pos = lexRawString(pos, column);
      continue;
    }
    if (c === 39) {
      pos = lexRune(pos, column);
      continue;
    }
    if (c === 59) {
      push('semi', ';', 0, line, column);
      pos++;
      continue;
    }

    const candidates = OPERATORS_BY_FIRST_CHAR.get(c);
    if (candidates) {
      let op = candidates[candidates.length - 1]; // the single character, which always matches
      for (const candidate of candidates) {
        if (candidate.length === 1 || source.startsWith(candidate, pos)) {
          op = candidate;
          break;
        }
      }
      push('op', op, 0, line, column);
      pos += op.length;
      continue;
    }

    const cp = source.codePointAt(pos) as number;
    diagnostics.error('INVALID_CHARACTER', { line, column }, `invalid character ${describeCharacter(cp)}`);
    pos += cp > 0xffff ? 2 : 1;
  }

  insertSemicolon(line, length - lineStart + 1);
  tokens.push({ kind: 'eof', text: '', value: 0, line, column: length - lineStart + 1, auto: false });
  return tokens;

  function lexNumber(start: number, column: number): number {
    let pos = start;
    while (pos < length && isDecimalDigit(source.charCodeAt(pos))) pos++;
    // Fast path: a plain decimal integer with no leading zero, ended by something that is not part of a number.
    const after = source.charCodeAt(pos);
    if (pos - start < 16 && (source.charCodeAt(start) !== 48 || pos - start === 1) && !isAsciiLetter(after) && after !== 46) {
      const text = source.slice(start, pos);
      push('int', text, Number(text), line, column);
      return pos;
    }
    // Swallow the rest of anything number-like (digits of any base, separators, fractions, exponents,
    // suffixes) so that it is one literal and, when malformed, one error.
    while (pos < length) {
      const d = source.charCodeAt(pos);
      if (isAsciiLetter(d) || isDecimalDigit(d)) pos++;
      else if (d === 46 && source.charCodeAt(pos + 1) !== 46) pos++;
      else if ((d === 43 || d === 45) && /^(0[xX][0-9a-fA-F_.]*[pP]|[0-9_.]*[eE])$/.test(source.slice(start, pos))) pos++;
      else break;
    }
    const text = source.slice(start, pos);
    const problem = integerLiteralProblem(text);
    if (problem) {
      diagnostics.error('UNSUPPORTED_NUMBER', { line, column }, problem);
      push('bad', text, 0, line, column);
      return pos;
    }
    push('int', text, integerValue(text), line, column);
    return pos;
  }

  function lexInterpretedString(start: number, column: number): number {
    // Fast path: most literals have no escapes and close on the same line.
    for (let i = start + 1; i < length; i++) {
      const d = source.charCodeAt(i);
      if (d === 34) {
        push('string', source.slice(start + 1, i), 0, line, column);
        return i + 1;
      }
      if (d === 92 || d === 10 || (d >= 0xd800 && d <= 0xdfff)) break;
    }
    let pos = start + 1;
    let value = '';
    let segmentStart = pos;
    let bytes: number[] | null = null; // \x and octal escapes are bytes; consecutive ones form UTF-8
    let bytesColumn = 0; // where the current run of byte escapes starts
    const errorsBefore = diagnostics.errors.length;
    // A literal with a lexical error becomes a 'bad' token: its value is unknowable, so no rule is checked on it.
    const finish = (): void => push(diagnostics.errors.length > errorsBefore ? 'bad' : 'string', value, 0, line, column);
    const flushBytes = (): void => {
      if (!bytes) return;
      const run = new Uint8Array(bytes);
      bytes = null;
      try {
        value += strictUtf8Decoder.decode(run);
      } catch {
        // Source text is UTF-8 and so is visitor data; only escapes can make other bytes, and a run of
        // them has to be whole UTF-8 characters on its own (the text around it is whole characters).
        const shown = [...run].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
        diagnostics.error(
          'INVALID_UTF8_LITERAL',
          { line, column: bytesColumn },
          `"${shown}" is not valid UTF-8: byte escapes must spell whole UTF-8 characters (e.g. "\\xc3\\xa9" for é); visitor data is always valid UTF-8, so such a string could never match it`,
        );
      }
    };
    for (;;) {
      if (pos >= length || source.charCodeAt(pos) === 10) {
        diagnostics.error(
          'UNTERMINATED_STRING',
          { line, column },
          'string literal not terminated: add the closing " on the same line (use `...` for text spanning lines)',
        );
        flushBytes();
        value += source.slice(segmentStart, pos);
        finish();
        return pos;
      }
      const c = source.charCodeAt(pos);
      if (c === 34) {
        flushBytes();
        value += source.slice(segmentStart, pos);
        finish();
        return pos + 1;
      }
      if (c !== 92) {
        if (c >= 0xd800 && c <= 0xdfff) pos = checkSurrogatePair(pos);
        else pos++;
        continue;
      }
      const plain = source.slice(segmentStart, pos);
      if (plain) flushBytes();
      value += plain;
      const escapeColumn = pos - lineStart + 1;
      const kind = source[pos + 1] ?? '';
      if (kind in SIMPLE_ESCAPES) {
        flushBytes();
        value += SIMPLE_ESCAPES[kind];
        pos += 2;
      } else if (kind === 'x' || (kind >= '0' && kind <= '7')) {
        const digits = kind === 'x' ? source.slice(pos + 2, pos + 4) : source.slice(pos + 1, pos + 4);
        const valid = kind === 'x' ? /^[0-9a-fA-F]{2}$/.test(digits) : /^[0-7]{3}$/.test(digits) && parseInt(digits, 8) <= 255;
        if (valid) {
          if (!bytes) bytesColumn = escapeColumn;
          (bytes ??= []).push(parseInt(digits, kind === 'x' ? 16 : 8));
          pos += 4; // \xHH and \ooo are both four characters
        } else {
          diagnostics.error(
            'INVALID_ESCAPE',
            { line, column: escapeColumn },
            kind === 'x' ? 'invalid escape: \\x needs two hex digits' : 'invalid escape: octal escapes need three digits 000..377',
          );
          pos += 2;
        }
      } else if (kind === 'u' || kind === 'U') {
        const count = kind === 'u' ? 4 : 8;
        let ok = true;
        for (let i = 0; i < count; i++) if (!isHexDigit(source.charCodeAt(pos + 2 + i))) ok = false;
        const cp = ok ? parseInt(source.slice(pos + 2, pos + 2 + count), 16) : -1;
        if (ok && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff)) {
          flushBytes();
          value += String.fromCodePoint(cp);
          pos += 2 + count;
        } else {
          diagnostics.error(
            'INVALID_ESCAPE',
            { line, column: escapeColumn },
            `invalid escape: \\${kind} needs ${count} hex digits naming a valid Unicode code point`,
          );
          pos += 2;
        }
      } else {
        const shown = kind === '\n' || kind === '' ? '\\' : `\\${kind}`;
        diagnostics.error('INVALID_ESCAPE', { line, column: escapeColumn }, `unknown escape sequence ${shown}; valid: \\n \\t \\" \\\\ \\xHH \\uHHHH`);
        pos += kind === '\n' || kind === '' ? 1 : 2;
      }
      segmentStart = pos;
    }
  }

  /** At a surrogate inside a string literal: steps over a valid pair; a lone half is not UTF-8. */
  function checkSurrogatePair(pos: number): number {
    const c = source.charCodeAt(pos);
    const d = source.charCodeAt(pos + 1);
    if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) return pos + 2;
    diagnostics.error('INVALID_UTF8_LITERAL', { line, column: pos - lineStart + 1 }, 'the string holds an unpaired surrogate, which is not valid UTF-8');
    return pos + 1;
  }

  function lexRawString(start: number, column: number): number {
    const startLine = line;
    const end = source.indexOf('`', start + 1);
    const stop = end < 0 ? length : end;
    for (let i = start + 1; i < stop; i++) {
      if (source.charCodeAt(i) === 10) {
        line++;
        lineStart = i + 1;
      }
    }
    // Go drops carriage returns from raw strings, so CRLF files mean the same as LF files.
    const value = source.slice(start + 1, stop).replace(/\r/g, '');
    if (LONE_SURROGATE.test(value)) {
      diagnostics.error('INVALID_UTF8_LITERAL', { line: startLine, column }, 'the raw string holds an unpaired surrogate, which is not valid UTF-8');
      push('bad', value, 0, startLine, column);
      return end < 0 ? length : end + 1;
    }
    if (end < 0) diagnostics.error('UNTERMINATED_STRING', { line: startLine, column }, 'raw string literal not terminated: add the closing `');
    push(end < 0 ? 'bad' : 'string', value, 0, startLine, column);
    return end < 0 ? length : end + 1;
  }

  function lexRune(start: number, column: number): number {
    let pos = start + 1;
    while (pos < length && source.charCodeAt(pos) !== 39 && source.charCodeAt(pos) !== 10) {
      pos += source.charCodeAt(pos) === 92 ? 2 : 1;
    }
    const closed = source.charCodeAt(pos) === 39;
    const inner = source.slice(start + 1, Math.min(pos, length));
    diagnostics.error('UNSUPPORTED_RUNE_LITERAL', { line, column }, `'${inner}' is a rune literal; write strings in double quotes: "${inner}"`);
    push('bad', inner, 0, line, column);
    return closed ? pos + 1 : pos;
  }
}
