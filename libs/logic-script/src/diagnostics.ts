// Every diagnostic the validator can produce, with a one-line summary. Codes are part of the public
// contract (editors and the API key on them), so they are only ever added, never renamed.

export const DIAGNOSTIC_CODES = {
  // Input as a whole
  INVALID_INPUT: 'the code is not a string',
  CODE_TOO_LARGE: 'the code is larger than the maximum size',
  INTERNAL_ERROR: 'the validator failed unexpectedly (a bug, please report the script)',
  // Lexical
  INVALID_CHARACTER: 'a character that cannot appear in a script',
  UNTERMINATED_STRING: 'a string literal without its closing quote',
  INVALID_ESCAPE: 'an escape sequence Go does not define',
  UNTERMINATED_COMMENT: 'a /* comment without */',
  UNSUPPORTED_NUMBER: 'a number that is not a Go integer literal: a fraction, an exponent, an imaginary number or a malformed literal',
  UNSUPPORTED_RUNE_LITERAL: "a 'x' rune literal",
  INTEGER_OUT_OF_RANGE: 'an integer constant that overflows int (64 bits), as Go reports it',
  INVALID_UTF8_LITERAL: 'a string literal whose \\x or octal escapes are not valid UTF-8 (visitor data always is)',
  // Syntax
  SYNTAX_ERROR: 'the code does not parse',
  ELSE_ON_NEW_LINE: 'else does not follow the closing brace on the same line',
  NESTING_TOO_DEEP: 'blocks or expressions nested too deeply',
  // Constructs the spec forbids, one code each
  FORBIDDEN_IMPORT: 'import declaration',
  FORBIDDEN_PACKAGE_CLAUSE: 'package clause',
  FORBIDDEN_LOOP: 'for loop',
  FORBIDDEN_GOROUTINE: 'go statement',
  FORBIDDEN_CHANNEL: 'channel type or operation',
  FORBIDDEN_MAP: 'map type or literal',
  FORBIDDEN_INDEXING: 'indexing or slicing with [ ]',
  FORBIDDEN_POINTER: 'pointer type, address-of or dereference',
  FORBIDDEN_PACKAGE: 'a package other than strings',
  FORBIDDEN_METHOD_CALL: 'a method call on a value',
  FORBIDDEN_DEFER: 'defer statement',
  FORBIDDEN_SELECT: 'select statement',
  FORBIDDEN_APPEND: 'built-in append',
  FORBIDDEN_MAKE: 'built-in make',
  FORBIDDEN_NEW: 'built-in new',
  FORBIDDEN_PANIC: 'built-in panic',
  FORBIDDEN_PRINT: 'built-in print',
  FORBIDDEN_PRINTLN: 'built-in println',
  FORBIDDEN_RECOVER: 'built-in recover',
  FORBIDDEN_DELETE: 'built-in delete',
  FORBIDDEN_COPY: 'built-in copy',
  // Go that is outside the language
  UNSUPPORTED_ARITHMETIC: 'arithmetic, bit operations or string concatenation',
  UNSUPPORTED_FUNCTION_DECLARATION: 'a func declaration (the script is already the function body)',
  UNSUPPORTED_BRANCH: 'continue, goto or a label; break or fallthrough outside a switch case',
  UNSUPPORTED_CONST: 'no longer reported: const declarations are part of the language',
  UNSUPPORTED_TYPE_DECLARATION: 'type declaration',
  UNSUPPORTED_TYPE: 'a type other than string, int, bool and []string',
  UNSUPPORTED_CONVERSION: 'a conversion to a type outside the language, such as rune(x) or float64(x)',
  INVALID_CONVERSION: 'a conversion Go does not allow, such as int("5")',
  UNSUPPORTED_BUILTIN: 'a Go built-in other than len',
  UNSUPPORTED_NIL: 'nil where no func value is expected (nil is only a func value)',
  UNSUPPORTED_TYPE_ASSERTION: 'type assertion or type switch',
  UNSUPPORTED_STRINGS_FUNCTION: 'a strings function other than Contains, HasPrefix, HasSuffix, ToLower, ToUpper',
  UNSUPPORTED_SELECTOR: 'field access on a value',
  UNSUPPORTED_COMPOSITE_LITERAL: 'a composite literal other than []string{...}',
  UNSUPPORTED_FUNCTION_VARIABLE: 'no longer reported: variables of func type are part of the language',
  // Names and scopes
  UNDEFINED: 'a name that is not declared',
  REDECLARED: 'a name declared twice in the same block',
  NO_NEW_VARIABLES: ':= with no new variable on the left',
  RESERVED_NAME: 'no longer reported: a local may shadow a predeclared name, as in Go',
  READ_ONLY_VARIABLE: 'no longer reported: a predeclared variable may be assigned, as in Go',
  UNUSED_VARIABLE: 'a local variable that is declared and not used',
  INVALID_BLANK_USE: '_ used as a value',
  INVALID_ASSIGNMENT: 'assignment to something that is not a local variable',
  ASSIGNMENT_COUNT_MISMATCH: 'different numbers of names and values',
  // Types
  TYPE_MISMATCH: 'a value of the wrong type',
  NON_BOOLEAN_CONDITION: 'an if or case condition that is not a bool',
  INVALID_OPERATION: 'an operator applied to a type it does not accept',
  NOT_A_FUNCTION: 'a call of something that is not a function, or a type used as a value',
  NOT_A_TYPE: 'a name used as a type that a local declaration shadows',
  NOT_CONSTANT: 'a const declared with a value that is not constant',
  MISSING_CONSTANT_VALUE: 'a const without a value, or with more or fewer values than names',
  WRONG_ARGUMENT_COUNT: 'too many or too few arguments',
  INVALID_SPREAD: 'a ... argument that is not a []string for oneOf or containsAny',
  INVALID_FUNCTION_VALUE: 'a helper used without calling it',
  INVALID_CLOSURE_USE: 'a func value used other than by calling it, assigning it or comparing it with nil',
  INVALID_CLOSURE_SIGNATURE: 'closure parameters or result outside bool, int and string',
  RECURSION_NOT_ALLOWED: 'a closure that calls itself, directly or through another closure',
  UNUSED_EXPRESSION: 'an expression statement whose value is discarded',
  DUPLICATE_CASE: 'the same case value twice in one switch',
  DUPLICATE_DEFAULT: 'two default clauses in one switch',
  RETURN_COUNT_MISMATCH: 'return with no value or several values',
  MISSING_RETURN: 'a path that ends without returning',
  // Literal rules
  INVALID_ROUTE_KEY: 'a returned key that does not match the route-key pattern',
  INVALID_FIELD_NAME: 'a trackingField or dataBuffer name that does not match the name pattern',
  INVALID_CLOCK_TIME: 'an HHMM literal that is not a clock time',
  INVALID_UTC_OFFSET: 'a UTC offset outside -12..14',
  // Warnings
  NON_LITERAL_ROUTE_KEY: 'the script returns a computed key, which cannot be checked in advance',
  UNUSED_RESULT: 'a helper called as a statement; its result is discarded',
  UNREACHABLE_CODE: 'a statement after a return (or a break), which never runs; the first return wins',
  STRING_FROM_INT: 'string(x) of an int x, which yields the character with that code, not the digits (as go vet warns)',
  OCTAL_CLOCK_TIME: 'an HHMM argument written with a leading 0, which Go reads as octal (0700 is 448, 04:48)',
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

export interface Diagnostic {
  /** 1-based line. */
  line: number;
  /** 1-based column, in UTF-16 code units (what editors such as Monaco count). */
  column: number;
  code: DiagnosticCode;
  message: string;
}

/** Above this many errors the rest are noise; the author fixes the first ones and validates again. */
export const MAX_REPORTED_ERRORS = 100;

export interface SourcePosition {
  line: number;
  column: number;
}

/** Collects diagnostics; drops exact duplicates (same code at the same place), which recovery can produce. */
export class DiagnosticBag {
  readonly errors: Diagnostic[] = [];
  readonly warnings: Diagnostic[] = [];
  private readonly seen = new Set<string>();

  error(code: DiagnosticCode, at: SourcePosition, message: string): void {
    this.push(this.errors, code, at, message);
  }

  warning(code: DiagnosticCode, at: SourcePosition, message: string): void {
    this.push(this.warnings, code, at, message);
  }

  private push(list: Diagnostic[], code: DiagnosticCode, at: SourcePosition, message: string): void {
    const key = `${code}:${at.line}:${at.column}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    list.push({ line: at.line, column: at.column, code, message });
  }
}

export function sortDiagnostics(list: Diagnostic[]): Diagnostic[] {
  // Array.prototype.sort is stable, so same-position diagnostics keep their discovery order.
  return list.sort((a, b) => a.line - b.line || a.column - b.column);
}
