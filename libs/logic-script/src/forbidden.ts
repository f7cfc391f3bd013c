// What each forbidden construct of the spec is and what to write instead. The parser and checker take
// their messages from here and the catalog lists it, so the advice is the same everywhere.
import type { DiagnosticCode } from './diagnostics';

export interface ForbiddenConstruct {
  code: DiagnosticCode;
  /** e.g. "loops are not allowed" */
  rejected: string;
  /** What to write instead. */
  instead: string;
}

const STRINGS_HELPERS = 'strings.Contains, strings.HasPrefix, strings.HasSuffix, strings.ToLower and strings.ToUpper';

export const FORBIDDEN_CONSTRUCTS: readonly ForbiddenConstruct[] = [
  { code: 'FORBIDDEN_IMPORT', rejected: 'imports are not allowed', instead: `remove the import; ${STRINGS_HELPERS} are available without one` },
  {
    code: 'FORBIDDEN_PACKAGE_CLAUSE',
    rejected: 'package clauses are not allowed',
    instead: 'remove the package clause; the script is a list of statements ending with return "key"',
  },
  {
    code: 'FORBIDDEN_LOOP',
    rejected: 'loops are not allowed',
    instead: 'test a list with oneOf(value, list...) or containsAny(value, list...), or use a switch with case lists',
  },
  { code: 'FORBIDDEN_GOROUTINE', rejected: 'goroutines are not allowed', instead: 'call the closure directly; scripts run synchronously' },
  { code: 'FORBIDDEN_CHANNEL', rejected: 'channels are not allowed', instead: 'keep values in local variables; scripts run synchronously' },
  { code: 'FORBIDDEN_MAP', rejected: 'maps are not allowed', instead: 'use a switch with case lists, or oneOf(value, "a", "b")' },
  {
    code: 'FORBIDDEN_INDEXING',
    rejected: 'indexing is not allowed',
    instead: 'use trackingField("x") or dataBuffer("x") to read a parameter, and strings.HasPrefix / strings.Contains for parts of a string',
  },
  { code: 'FORBIDDEN_POINTER', rejected: 'pointers are not allowed', instead: 'use the value itself' },
  { code: 'FORBIDDEN_PACKAGE', rejected: 'packages other than strings are not available', instead: `use the helpers of the language and ${STRINGS_HELPERS}` },
  {
    code: 'FORBIDDEN_METHOD_CALL',
    rejected: 'method calls are not allowed',
    instead: 'pass the value to a helper, e.g. strings.ToLower(browser) instead of browser.ToLower()',
  },
  { code: 'FORBIDDEN_DEFER', rejected: 'defer is not allowed', instead: 'put the statement where it should run' },
  { code: 'FORBIDDEN_SELECT', rejected: 'select is not allowed', instead: 'use switch { case condition: ... }' },
  { code: 'FORBIDDEN_APPEND', rejected: 'append is not allowed', instead: 'write the whole list at once: []string{"a", "b"}' },
  { code: 'FORBIDDEN_MAKE', rejected: 'make is not allowed', instead: 'write a list as []string{"a", "b"}; for lookups use a switch or oneOf' },
  { code: 'FORBIDDEN_NEW', rejected: 'new is not allowed', instead: 'declare a value with name := value' },
  { code: 'FORBIDDEN_PANIC', rejected: 'panic is not allowed', instead: 'return "default" to send the visitor down the fallback connection' },
  { code: 'FORBIDDEN_PRINT', rejected: 'print is not allowed', instead: 'scripts have no output; use the dry run to see which key a visitor gets' },
  { code: 'FORBIDDEN_PRINTLN', rejected: 'println is not allowed', instead: 'scripts have no output; use the dry run to see which key a visitor gets' },
  { code: 'FORBIDDEN_RECOVER', rejected: 'recover is not allowed', instead: 'leave it out; a runtime failure already routes the visitor to default' },
  { code: 'FORBIDDEN_DELETE', rejected: 'delete is not allowed', instead: 'maps are not available; use a switch or oneOf(value, "a", "b")' },
  { code: 'FORBIDDEN_COPY', rejected: 'copy is not allowed', instead: 'declare another []string{...} literal' },
];

const BY_CODE = new Map(FORBIDDEN_CONSTRUCTS.map((f) => [f.code, f]));

/** Go built-ins the spec forbids, by name. */
export const FORBIDDEN_BUILTINS: ReadonlyMap<string, DiagnosticCode> = new Map<string, DiagnosticCode>([
  ['append', 'FORBIDDEN_APPEND'],
  ['make', 'FORBIDDEN_MAKE'],
  ['new', 'FORBIDDEN_NEW'],
  ['panic', 'FORBIDDEN_PANIC'],
  ['print', 'FORBIDDEN_PRINT'],
  ['println', 'FORBIDDEN_PRINTLN'],
  ['recover', 'FORBIDDEN_RECOVER'],
  ['delete', 'FORBIDDEN_DELETE'],
  ['copy', 'FORBIDDEN_COPY'],
]);

/** "loops are not allowed: <instead>"; `subject` replaces the generic wording, e.g. "package fmt is not available". */
export function forbiddenMessage(code: DiagnosticCode, subject?: string): string {
  const entry = BY_CODE.get(code);
  if (!entry) return subject ?? code;
  return `${subject ?? entry.rejected}: ${entry.instead}`;
}
