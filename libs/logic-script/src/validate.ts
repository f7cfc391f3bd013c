// The front end as one call: size rule, lexer, parser, checker. Shared by validate() (which returns
// only the diagnostics) and compile() (which also needs the annotated tree).
import type { Script } from './ast';
import { check } from './checker';
import { Diagnostic, DiagnosticBag, MAX_REPORTED_ERRORS, sortDiagnostics } from './diagnostics';
import { tokenize } from './lexer';
import { parse } from './parser';
import { MAX_CODE_BYTES, utf8ByteLength } from './rules';

export interface ValidationResult {
  valid: boolean;
  /** Route keys the script's own return statements return as literals, in source order, without duplicates. */
  routeKeys: string[];
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

export interface Analysis {
  result: ValidationResult;
  /** The checked tree; only meaningful when the result is valid. */
  script: Script | null;
}

function rejected(code: Diagnostic['code'], message: string): Analysis {
  return { result: { valid: false, routeKeys: [], errors: [{ line: 1, column: 1, code, message }], warnings: [] }, script: null };
}

export function analyze(code: unknown): Analysis {
  try {
    if (typeof code !== 'string') {
      return rejected('INVALID_INPUT', `code must be a string, got ${code === null ? 'null' : Array.isArray(code) ? 'an array' : typeof code}`);
    }
    // Checked before lexing, so an oversized input costs nothing to reject.
    const bytes = utf8ByteLength(code);
    if (bytes > MAX_CODE_BYTES) return rejected('CODE_TOO_LARGE', `the script is ${bytes} bytes; the maximum is ${MAX_CODE_BYTES} bytes (UTF-8)`);
    const diagnostics = new DiagnosticBag();
    const tokens = tokenize(code, diagnostics);
    // An unterminated comment or string swallows code the author meant; treat it like skipped tokens.
    const swallowed = diagnostics.errors.some((e) => e.code === 'UNTERMINATED_COMMENT' || e.code === 'UNTERMINATED_STRING');
    const { script, recovered } = parse(tokens, diagnostics);
    const { routeKeys } = check(script, diagnostics, { recovered: recovered || swallowed });
    const errors = sortDiagnostics(diagnostics.errors).slice(0, MAX_REPORTED_ERRORS);
    const warnings = sortDiagnostics(diagnostics.warnings);
    return { result: { valid: errors.length === 0, routeKeys, errors, warnings }, script };
  } catch (error) {
    // Never throws: a bug here must not take the caller down with it.
    return rejected('INTERNAL_ERROR', `the validator failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Validates a script. Never throws, whatever `code` is. */
export function validate(code: unknown): ValidationResult {
  return analyze(code).result;
}
