// Go's static rules for the script subset: scopes, types, declared-and-not-used, terminating
// statements, plus the spec's own rules (read-only variables, literal formats, no recursion). It
// annotates the tree in place (bindings, call targets, frame slots) for the compiler.
import type {
  Assign,
  BinaryExpr,
  Block,
  CallExpr,
  Expr,
  FuncLit,
  FuncType,
  Ident,
  IfStmt,
  LocalBinding,
  Located,
  ReturnStmt,
  Script,
  SelectorExpr,
  ShortVarDecl,
  Stmt,
  SwitchStmt,
  Type,
  VarDecl,
} from './ast';
import {
  ARGUMENT_RULES,
  HelperDefinition,
  helperSignature,
  HELPERS,
  HELPERS_BY_NAME,
  STRINGS_MEMBERS,
  TYPE_SPELLING,
  ValueType,
  VARIABLES,
  VARIABLES_BY_NAME,
} from './builtins';
import { DiagnosticBag, DiagnosticCode, MAX_REPORTED_ERRORS } from './diagnostics';
import { FORBIDDEN_BUILTINS, forbiddenMessage } from './forbidden';
import { FALLBACK_ROUTE_KEY, isRouteKey } from './rules';

export interface CheckOptions {
  /** The parser skipped tokens: skip the analyses a missing statement would mislead (unused, missing return). */
  recovered: boolean;
}

export interface CheckResult {
  /** Valid string literals returned by the script's own return statements, in source order, deduplicated. */
  routeKeys: string[];
  /** Frame size the compiled script needs. */
  slotCount: number;
}

export function check(script: Script, diagnostics: DiagnosticBag, options: CheckOptions): CheckResult {
  return new Checker(diagnostics, options).checkScript(script);
}

/** A constant operand: a literal, possibly parenthesized or negated. */
export function constantValue(expr: Expr): string | number | boolean | undefined {
  switch (expr.kind) {
    case 'StringLit':
    case 'IntLit':
      return expr.value;
    case 'ParenExpr':
      return constantValue(expr.expr);
    case 'UnaryExpr': {
      const inner = constantValue(expr.operand);
      if (expr.op === '-' && typeof inner === 'number') return inner === 0 ? 0 : -inner;
      if (expr.op === '!' && typeof inner === 'boolean') return !inner;
      return undefined;
    }
    case 'Ident':
      return expr.binding?.kind === 'constant' ? expr.binding.value : undefined;
    default:
      return undefined;
  }
}

// ---- names Go predeclares, and what the language makes of them ---------------------------------

const GO_TYPE_NAMES = new Set([
  'bool',
  'byte',
  'comparable',
  'complex64',
  'complex128',
  'error',
  'float32',
  'float64',
  'int',
  'int8',
  'int16',
  'int32',
  'int64',
  'rune',
  'string',
  'uint',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'uintptr',
  'any',
]);
const UNSUPPORTED_BUILTINS = new Set(['cap', 'clear', 'close', 'complex', 'imag', 'max', 'min', 'real', 'iota']);
const PACKAGE_HINTS: Readonly<Record<string, string>> = {
  fmt: 'scripts have no output; use the dry run to see which key a visitor gets',
  time: 'use hour, minute, weekday, dayOfMonth, month, year and timeInRange, timeAtOrAfter, timeAtOrBefore, localDay',
  regexp: 'use strings.Contains, strings.HasPrefix, strings.HasSuffix or containsAny',
  strconv: 'compare strings directly; numbers are already int',
  url: 'read URL parameters with trackingField("x") or dataBuffer("x")',
  http: 'read URL parameters with trackingField("x") or dataBuffer("x")',
  os: 'scripts cannot reach the environment; read visitor data from the predeclared variables',
  math: 'arithmetic is not part of the language; compare values instead',
  rand: 'scripts are deterministic; split traffic with the funnel, not the script',
};
const KNOWN_PACKAGES = new Set([
  ...Object.keys(PACKAGE_HINTS),
  'bytes',
  'errors',
  'unicode',
  'utf8',
  'json',
  'io',
  'log',
  'sync',
  'sort',
  'net',
  'path',
  'filepath',
  'reflect',
  'context',
  'bufio',
  'crypto',
  'sha256',
  'md5',
  'base64',
  'hex',
  'html',
  'template',
  'exec',
  'runtime',
  'atomic',
  'big',
  'slices',
  'maps',
  'cmp',
]);
const RESERVED_NAMES = new Set<string>([
  ...VARIABLES.map((v) => v.name),
  ...HELPERS.filter((h) => !h.name.includes('.')).map((h) => h.name),
  'strings',
  'true',
  'false',
  'nil',
  'iota',
  ...FORBIDDEN_BUILTINS.keys(),
  ...UNSUPPORTED_BUILTINS,
  ...GO_TYPE_NAMES,
]);

function typeName(type: Type): string {
  if (typeof type === 'string') return type === 'invalid' ? 'invalid type' : TYPE_SPELLING[type];
  return `func(${type.params.map((p) => TYPE_SPELLING[p]).join(', ')}) ${TYPE_SPELLING[type.result]}`;
}

/** Short source-like rendering of an expression for messages. */
function show(expr: Expr): string {
  switch (expr.kind) {
    case 'StringLit':
      return JSON.stringify(expr.value.length > 24 ? `${expr.value.slice(0, 24)}...` : expr.value);
    case 'IntLit':
      return String(expr.value);
    case 'Ident':
      return expr.name;
    case 'ParenExpr':
      return `(${show(expr.expr)})`;
    case 'UnaryExpr':
      return `${expr.op}${show(expr.operand)}`;
    case 'SelectorExpr':
      return `${show(expr.target)}.${expr.name}`;
    case 'CallExpr':
      return `${show(expr.callee)}(...)`;
    case 'BinaryExpr':
      return `${show(expr.left)} ${expr.op} ${show(expr.right)}`;
    case 'ListLit':
      return '[]string{...}';
    case 'FuncLit':
      return 'func literal';
    default:
      return 'expression';
  }
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length];
}

// ---- scopes and function contexts --------------------------------------------------------------

const NO_NAMES: ReadonlyMap<string, LocalBinding> = new Map();

class Scope {
  // Most blocks declare nothing, so the map is only created on the first declaration.
  private own: Map<string, LocalBinding> | null = null;

  constructor(readonly parent: Scope | null) {}

  get names(): ReadonlyMap<string, LocalBinding> {
    return this.own ?? NO_NAMES;
  }

  add(binding: LocalBinding): void {
    (this.own ??= new Map()).set(binding.name, binding);
  }

  lookup(name: string): LocalBinding | undefined {
    const own = this.own?.get(name);
    if (own) return own;
    for (let scope = this.parent; scope; scope = scope.parent) {
      const found = scope.own?.get(name);
      if (found) return found;
    }
    return undefined;
  }

  encloses(inner: Scope): boolean {
    for (let scope: Scope | null = inner; scope; scope = scope.parent) if (scope === this) return true;
    return false;
  }
}

interface FunctionContext {
  /** Result type of the enclosing function: string for the script itself. */
  result: ValueType | 'invalid';
  /** The closure being checked, or null at script level. */
  closure: FuncLit | null;
}

/** A name not (yet) declared where it is used; resolved into UNDEFINED or RECURSION_NOT_ALLOWED. */
interface PendingReference {
  ident: Ident;
  scope: Scope;
  from: FuncLit | null;
  settled: boolean;
}

class Checker {
  private slotCount = 0;
  private readonly routeKeys: string[] = [];
  private readonly pending: PendingReference[] = [];
  /** Which closures each closure calls, for recursion detection. */
  private readonly calls = new Map<FuncLit, Set<FuncLit>>();
  private readonly closureNames = new Map<FuncLit, string>();

  constructor(
    private readonly diagnostics: DiagnosticBag,
    private readonly options: CheckOptions,
  ) {}

  checkScript(script: Script): CheckResult {
    const scope = new Scope(null);
    const context: FunctionContext = { result: 'string', closure: null };
    const terminates = this.checkList(script.body, scope, context);
    this.closeScope(scope);
    if (!terminates && !this.options.recovered) {
      this.error(
        'MISSING_RETURN',
        script.end,
        `missing return at the end of the script: every path must return a route key; end with return "${FALLBACK_ROUTE_KEY}"`,
      );
    }
    for (const reference of this.pending) {
      if (!reference.settled) this.reportUndefined(reference.ident, reference.scope);
    }
    return { routeKeys: [...new Set(this.routeKeys)], slotCount: this.slotCount };
  }

  private error(code: DiagnosticCode, at: Located, message: string): void {
    this.diagnostics.error(code, at, message);
  }

  // ---- declarations ------------------------------------------------------------------------------

  private declare(
    scope: Scope,
    ident: Ident | { name: string; line: number; column: number },
    type: Type,
    closure: FuncLit | null,
    isParameter: boolean,
  ): LocalBinding | null {
    if (ident.name === '_') return null;
    if (RESERVED_NAMES.has(ident.name)) {
      const what = VARIABLES_BY_NAME.has(ident.name)
        ? 'a predeclared variable'
        : HELPERS_BY_NAME.has(ident.name)
          ? 'a helper'
          : ident.name === 'strings'
            ? 'the strings package'
            : 'predeclared in Go';
      this.error('RESERVED_NAME', ident, `${ident.name} is ${what} and cannot be redeclared; choose another name`);
      return null;
    }
    const previous = scope.names.get(ident.name);
    if (previous) {
      this.error('REDECLARED', ident, `${ident.name} redeclared in this block (first declared at line ${previous.line}, column ${previous.column})`);
      return null;
    }
    const binding: LocalBinding = {
      kind: 'local',
      name: ident.name,
      type,
      slot: this.slotCount++,
      line: ident.line,
      column: ident.column,
      used: false,
      isParameter,
      closure,
    };
    scope.add(binding);
    if ('kind' in ident) ident.binding = binding;
    if (closure) this.closureNames.set(closure, ident.name);
    this.settlePending(binding, scope);
    return binding;
  }

  /** A name declared now may have been used earlier: in Go that is "undefined", and between closures it is recursion. */
  private settlePending(binding: LocalBinding, scope: Scope): void {
    for (const reference of this.pending) {
      if (reference.settled || reference.ident.name !== binding.name || !scope.encloses(reference.scope)) continue;
      reference.settled = true;
      binding.used = true; // the use is an error, but reporting the name as unused too would be noise
      if (binding.closure && reference.from && this.reaches(binding.closure, reference.from)) {
        const caller = this.closureNames.get(reference.from);
        const cycle = reference.from === binding.closure || !caller ? `${binding.name} calls itself` : `${caller} and ${binding.name} call each other`;
        this.error('RECURSION_NOT_ALLOWED', reference.ident, `${cycle}: recursion is not allowed; write the logic without calling back`);
      } else {
        this.error('UNDEFINED', reference.ident, `${binding.name} is used before its declaration at line ${binding.line}; declare it first`);
      }
    }
  }

  private reaches(from: FuncLit, target: FuncLit): boolean {
    const seen = new Set<FuncLit>();
    const stack = [from];
    while (stack.length) {
      const current = stack.pop() as FuncLit;
      if (current === target) return true;
      if (seen.has(current)) continue;
      seen.add(current);
      for (const callee of this.calls.get(current) ?? []) stack.push(callee);
    }
    return false;
  }

  private closeScope(scope: Scope): void {
    if (this.options.recovered) return;
    for (const binding of scope.names.values()) {
      if (!binding.used && !binding.isParameter) {
        this.error(
          'UNUSED_VARIABLE',
          binding,
          `declared and not used: ${binding.name}${binding.closure ? ' (the closure is never called)' : ''}; use it or remove it`,
        );
      }
    }
  }

  private checkVarDecl(statement: VarDecl, scope: Scope, context: FunctionContext): void {
    const declared: ValueType | 'invalid' | null = statement.type ? statement.type.name : null;
    const { names, values } = statement;
    if (values.length > 0 && values.length !== names.length) {
      this.error(
        'ASSIGNMENT_COUNT_MISMATCH',
        statement,
        `assignment mismatch: ${names.length} variable${names.length === 1 ? '' : 's'} but ${values.length} value${values.length === 1 ? '' : 's'}`,
      );
    }
    // Values are checked before the names exist: in Go a variable's scope starts after its declaration.
    const types: Type[] = [];
    const closures: (FuncLit | null)[] = [];
    for (let i = 0; i < values.length; i++) {
      const value = values[i];
      if (value.kind === 'FuncLit' && (declared === null || declared === 'invalid')) {
        types.push(this.checkClosure(value, scope));
        closures.push(value);
        continue;
      }
      const type = this.checkExpr(value, scope, context);
      closures.push(null);
      types.push(type);
      if (declared !== null && i < names.length) this.requireAssignable(value, type, declared, `variable declaration`);
    }
    names.forEach((name, i) => {
      const type: Type = declared ?? (values.length === names.length ? types[i] : 'invalid');
      this.declare(scope, name, type, closures[i] ?? null, false);
    });
  }

  private checkShortVarDecl(statement: ShortVarDecl, scope: Scope, context: FunctionContext): void {
    const { names, values } = statement;
    if (values.length !== names.length) {
      this.error(
        'ASSIGNMENT_COUNT_MISMATCH',
        statement,
        `assignment mismatch: ${names.length} variable${names.length === 1 ? '' : 's'} but ${values.length} value${values.length === 1 ? '' : 's'}`,
      );
    }
    const types: Type[] = [];
    const closures: (FuncLit | null)[] = [];
    for (const value of values) {
      if (value.kind === 'FuncLit') {
        types.push(this.checkClosure(value, scope));
        closures.push(value);
      } else {
        types.push(this.checkExpr(value, scope, context));
        closures.push(null);
      }
    }
    let introducesAny = false;
    const introduces: boolean[] = [];
    names.forEach((name, i) => {
      const type: Type = values.length === names.length ? types[i] : 'invalid';
      const existing = name.name === '_' ? undefined : scope.names.get(name.name);
      if (name.name === '_') {
        introduces.push(false);
        return;
      }
      if (existing) {
        // := with an existing name of this block assigns to it (Go), provided something new is declared too.
        name.binding = existing;
        introduces.push(false);
        if (existing.closure || closures[i])
          this.error('INVALID_CLOSURE_USE', name, `${name.name} cannot be reassigned: declare each closure once with name := func(...) ...`);
        else if (values.length === names.length) this.requireAssignable(values[i], type, existing.type, 'assignment');
        return;
      }
      introducesAny = true;
      introduces.push(true);
      this.declare(scope, name, type, closures[i] ?? null, false);
    });
    statement.introduces = introduces;
    if (!introducesAny && names.length > 0) {
      this.error('NO_NEW_VARIABLES', statement, 'no new variables on the left side of :=; use = to assign to an existing variable');
    }
  }

  /** Checks a closure literal in a declaration and returns its type; its own name is not in scope inside. */
  private checkClosure(literal: FuncLit, scope: Scope): Type {
    const params: ValueType[] = [];
    let valid = true;
    for (const param of literal.params) {
      const type = param.type.name;
      if (type === 'invalid') valid = false;
      else if (type === 'list') {
        valid = false;
        this.error('INVALID_CLOSURE_SIGNATURE', param.type, `parameter ${param.name} has type []string; closure parameters are bool, int or string`);
      } else params.push(type);
    }
    let result: ValueType | 'invalid' = 'invalid';
    if (literal.results.length !== 1) {
      valid = false;
      this.error(
        'INVALID_CLOSURE_SIGNATURE',
        literal,
        literal.results.length === 0
          ? 'closures must return exactly one bool, int or string: add the result type, e.g. func(d string) bool { ... }'
          : 'closures return exactly one value: choose one bool, int or string result',
      );
    } else {
      const type = literal.results[0].name;
      if (type === 'list') {
        valid = false;
        this.error('INVALID_CLOSURE_SIGNATURE', literal.results[0], 'closures cannot return []string; return a bool, int or string');
      } else if (type === 'invalid') valid = false;
      else result = type;
    }
    this.checkFunctionBody(literal, scope, { result, closure: literal });
    return valid && result !== 'invalid' ? ({ kind: 'func', params, result } satisfies FuncType) : 'invalid';
  }

  private checkFunctionBody(literal: FuncLit, scope: Scope, inner: FunctionContext): void {
    if (!this.calls.has(literal)) this.calls.set(literal, new Set());
    // Parameters and the body's top-level declarations share one block, as in Go.
    const bodyScope = new Scope(scope);
    for (const param of literal.params) {
      const type: Type = param.type.name === 'list' ? 'invalid' : param.type.name;
      param.binding = this.declare(bodyScope, param, type, null, true) ?? undefined;
    }
    const terminates = this.checkList(literal.body.body, bodyScope, inner);
    this.closeScope(bodyScope);
    if (!terminates && !this.options.recovered && inner.result !== 'invalid') {
      this.error('MISSING_RETURN', literal.body.close, `missing return at the end of the closure: every path must return a ${TYPE_SPELLING[inner.result]}`);
    }
  }

  // ---- statements --------------------------------------------------------------------------------

  /** Checks a statement list; returns whether it contains a terminating statement (Go's rule, see the end). */
  private checkList(list: Stmt[], scope: Scope, context: FunctionContext): boolean {
    let terminated = false;
    let reportedUnreachable = false;
    for (const statement of list) {
      if (terminated && !reportedUnreachable) {
        reportedUnreachable = true;
        this.error(
          'UNREACHABLE_CODE',
          statement,
          'unreachable code: every path before this statement has already returned; remove it or move it above the return',
        );
      }
      const terminates = this.checkStatement(statement, scope, context);
      terminated = terminated || terminates;
    }
    // Go asks for the last statement to terminate; code after a terminating one is already an error
    // (unreachable), so reporting "missing return" for it as well would only repeat that.
    return terminated;
  }

  private checkStatement(statement: Stmt, scope: Scope, context: FunctionContext): boolean {
    switch (statement.kind) {
      case 'VarDecl':
        this.checkVarDecl(statement, scope, context);
        return false;
      case 'ShortVarDecl':
        this.checkShortVarDecl(statement, scope, context);
        return false;
      case 'Assign':
        this.checkAssign(statement, scope, context);
        return false;
      case 'ExprStmt':
        this.checkExpressionStatement(statement.expr, scope, context);
        return false;
      case 'ReturnStmt':
        this.checkReturn(statement, scope, context);
        return true;
      case 'Block':
        return this.checkBlock(statement, scope, context);
      case 'IfStmt':
        return this.checkIf(statement, scope, context);
      case 'SwitchStmt':
        return this.checkSwitch(statement, scope, context);
    }
  }

  private checkBlock(block: Block, scope: Scope, context: FunctionContext): boolean {
    const inner = new Scope(scope);
    const terminates = this.checkList(block.body, inner, context);
    this.closeScope(inner);
    return terminates;
  }

  private checkAssign(statement: Assign, scope: Scope, context: FunctionContext): void {
    const { targets, values } = statement;
    if (targets.length !== values.length) {
      this.error(
        'ASSIGNMENT_COUNT_MISMATCH',
        statement,
        `assignment mismatch: ${targets.length} variable${targets.length === 1 ? '' : 's'} but ${values.length} value${values.length === 1 ? '' : 's'}`,
      );
    }
    const types = values.map((value) => {
      if (value.kind === 'FuncLit') {
        this.error('INVALID_CLOSURE_USE', value, 'closures cannot be assigned; declare each closure once with name := func(...) ...');
        this.checkClosure(value, scope);
        return 'invalid' as Type;
      }
      return this.checkExpr(value, scope, context);
    });
    targets.forEach((target, i) => {
      const valueType = targets.length === values.length ? types[i] : 'invalid';
      const targetType = this.checkAssignTarget(target, scope, context);
      if (targetType !== null && targets.length === values.length) this.requireAssignable(values[i], valueType, targetType, 'assignment');
    });
  }

  /** The type a target accepts, or null when it cannot be assigned (already reported) or is `_`. */
  private checkAssignTarget(target: Expr, scope: Scope, context: FunctionContext): Type | null {
    if (target.kind === 'Ident') {
      if (target.name === '_') return null;
      const local = scope.lookup(target.name);
      if (local) {
        target.binding = local;
        if (local.closure) {
          this.error('INVALID_CLOSURE_USE', target, `${target.name} is a closure and cannot be reassigned`);
          return null;
        }
        return local.type;
      }
      if (VARIABLES_BY_NAME.has(target.name)) {
        this.error(
          'READ_ONLY_VARIABLE',
          target,
          `${target.name} is a predeclared variable and read-only; copy it into a local first: my${target.name[0].toUpperCase()}${target.name.slice(1)} := ${target.name}`,
        );
        return null;
      }
      if (RESERVED_NAMES.has(target.name)) {
        this.error('INVALID_ASSIGNMENT', target, `cannot assign to ${target.name}: it is predeclared`);
        return null;
      }
      this.deferUndefined(target, scope, context);
      return null;
    }
    if (target.kind === 'BadExpr') {
      this.checkExpr(target, scope, context);
      return null;
    }
    this.checkExpr(target, scope, context);
    this.error('INVALID_ASSIGNMENT', target, `cannot assign to ${show(target)}: only local variables can be assigned`);
    return null;
  }

  private checkExpressionStatement(expr: Expr, scope: Scope, context: FunctionContext): void {
    if (expr.kind === 'CallExpr') {
      this.checkCall(expr, scope, context);
      const target = expr.target;
      if (target?.kind === 'helper') {
        if (target.helper.name === 'len') this.error('UNUSED_EXPRESSION', expr, 'len(...) is evaluated but not used; compare it, e.g. if len(x) == 0 { ... }');
        else
          this.diagnostics.warning(
            'UNUSED_RESULT',
            expr,
            `the result of ${target.helper.name} is not used; did you mean if ${target.helper.name}(...) { ... }?`,
          );
      }
      return;
    }
    this.checkExpr(expr, scope, context);
    if (expr.kind !== 'BadExpr') {
      this.error('UNUSED_EXPRESSION', expr, `${show(expr)} is evaluated but not used; did you mean if ${show(expr)} { ... } or return?`);
    }
  }

  private checkReturn(statement: ReturnStmt, scope: Scope, context: FunctionContext): void {
    const expected = context.result;
    const atScript = context.closure === null;
    const what = atScript ? 'a route key (string)' : `a ${expected === 'invalid' ? 'value' : TYPE_SPELLING[expected]}`;
    if (statement.values.length === 0) {
      this.error('RETURN_COUNT_MISMATCH', statement, `missing return value: return ${what}${atScript ? `, e.g. return "${FALLBACK_ROUTE_KEY}"` : ''}`);
      return;
    }
    const types = statement.values.map((value) => this.checkExpr(value, scope, context));
    if (statement.values.length > 1) {
      this.error('RETURN_COUNT_MISMATCH', statement.values[1], `too many return values: return exactly one ${what}`);
      return;
    }
    const value = statement.values[0];
    if (expected !== 'invalid') this.requireAssignable(value, types[0], expected, 'return statement');
    if (!atScript || types[0] !== 'string') return;
    const literal = unparenthesize(value);
    if (literal.kind === 'StringLit') {
      if (isRouteKey(literal.value)) this.routeKeys.push(literal.value);
      else {
        this.error(
          'INVALID_ROUTE_KEY',
          literal,
          `invalid route key ${JSON.stringify(literal.value)}: use 1 to 64 lowercase letters, digits or underscores${/[A-Z]/.test(literal.value) && isRouteKey(literal.value.toLowerCase()) ? ` (e.g. "${literal.value.toLowerCase()}")` : ''}`,
        );
      }
    } else {
      this.diagnostics.warning(
        'NON_LITERAL_ROUTE_KEY',
        value,
        `the script returns ${show(value)}, whose key cannot be checked in advance; visitors get "${FALLBACK_ROUTE_KEY}" at run time when it matches no connection`,
      );
    }
  }

  private checkIf(statement: IfStmt, scope: Scope, context: FunctionContext): boolean {
    const ifScope = new Scope(scope);
    if (statement.init) this.checkStatement(statement.init, ifScope, context);
    const condition = this.checkExpr(statement.cond, ifScope, context);
    if (condition !== 'bool' && condition !== 'invalid') {
      this.error(
        'NON_BOOLEAN_CONDITION',
        statement.cond,
        `non-boolean condition in if statement: ${show(statement.cond)} is ${typeName(condition)}${condition === 'string' ? `; compare it, e.g. ${show(statement.cond)} == "x"` : ''}`,
      );
    }
    const thenTerminates = this.checkBlock(statement.then, ifScope, context);
    let elseTerminates = false;
    if (statement.otherwise) {
      elseTerminates =
        statement.otherwise.kind === 'IfStmt' ? this.checkIf(statement.otherwise, ifScope, context) : this.checkBlock(statement.otherwise, ifScope, context);
    }
    this.closeScope(ifScope);
    return thenTerminates && elseTerminates;
  }

  private checkSwitch(statement: SwitchStmt, scope: Scope, context: FunctionContext): boolean {
    const switchScope = new Scope(scope);
    if (statement.init) this.checkStatement(statement.init, switchScope, context);
    let tagType: Type = 'bool';
    if (statement.tag) {
      tagType = this.checkExpr(statement.tag, switchScope, context);
      if (tagType === 'list' || typeof tagType === 'object') {
        this.error('INVALID_OPERATION', statement.tag, `cannot switch on ${show(statement.tag)} (${typeName(tagType)}); switch on a string, int or bool`);
        tagType = 'invalid';
      }
    }
    const seen = new Map<string | number | boolean, Located>();
    let defaultClause: Located | null = null;
    let allTerminate = true;
    for (const clause of statement.clauses) {
      if (clause.values === null) {
        if (defaultClause) this.error('DUPLICATE_DEFAULT', clause, `multiple defaults in switch (first at line ${defaultClause.line})`);
        else defaultClause = clause;
      } else {
        for (const value of clause.values) {
          const type = this.checkExpr(value, switchScope, context);
          if (type === 'invalid' || tagType === 'invalid') continue;
          if (type !== tagType) {
            if (!statement.tag)
              this.error(
                'NON_BOOLEAN_CONDITION',
                value,
                `invalid case ${show(value)} in switch: a switch without a value needs bool cases, found ${typeName(type)}`,
              );
            else
              this.error(
                'TYPE_MISMATCH',
                value,
                `invalid case ${show(value)} in switch on ${show(statement.tag)}: mismatched types ${typeName(type)} and ${typeName(tagType)}`,
              );
            continue;
          }
          const constant = constantValue(value);
          if ((typeof constant === 'string' || typeof constant === 'number') && statement.tag) {
            const first = seen.get(constant);
            if (first) this.error('DUPLICATE_CASE', value, `duplicate case ${show(value)} in switch (first at line ${first.line}, column ${first.column})`);
            else seen.set(constant, value);
          }
        }
      }
      const clauseScope = new Scope(switchScope);
      const terminates = this.checkList(clause.body, clauseScope, context);
      this.closeScope(clauseScope);
      allTerminate = allTerminate && terminates;
    }
    this.closeScope(switchScope);
    return defaultClause !== null && allTerminate;
  }

  // ---- expressions -------------------------------------------------------------------------------

  private requireAssignable(value: Expr, type: Type, expected: Type, where: string): void {
    if (type === 'invalid' || expected === 'invalid') return;
    if (typeof type === 'object' || typeof expected === 'object') return; // closures are reported where they appear
    if (type !== expected) {
      const hint = type === 'list' && expected === 'string' ? '; lists can only be expanded into oneOf or containsAny with ...' : '';
      this.error('TYPE_MISMATCH', value, `cannot use ${show(value)} (${typeName(type)}) as ${typeName(expected)} value in ${where}${hint}`);
    }
  }

  private checkExpr(expr: Expr, scope: Scope, context: FunctionContext): Type {
    switch (expr.kind) {
      case 'StringLit':
        return 'string';
      case 'IntLit':
        return 'int';
      case 'Ident':
        return this.checkIdent(expr, scope, context);
      case 'ParenExpr':
        return this.checkExpr(expr.expr, scope, context);
      case 'UnaryExpr': {
        const operand = this.checkExpr(expr.operand, scope, context);
        if (operand === 'invalid') return 'invalid';
        const wanted = expr.op === '!' ? 'bool' : 'int';
        if (operand !== wanted) {
          this.error(
            'INVALID_OPERATION',
            expr,
            `operator ${expr.op} is not defined on ${show(expr.operand)} (${typeName(operand)}); it needs ${wanted === 'bool' ? 'a bool' : 'an int'}`,
          );
          return 'invalid';
        }
        return wanted;
      }
      case 'BinaryExpr':
        return this.checkBinary(expr, scope, context);
      case 'CallExpr':
        return this.checkCall(expr, scope, context);
      case 'SelectorExpr':
        return this.checkSelectorValue(expr, scope, context);
      case 'FuncLit':
        this.error('INVALID_CLOSURE_USE', expr, 'a closure must be assigned to a name and then called: name := func(...) T { ... }');
        this.checkClosure(expr, scope);
        return 'invalid';
      case 'ListLit': {
        for (const element of expr.elements) {
          const type = this.checkExpr(element, scope, context);
          this.requireAssignable(element, type, 'string', 'list literal');
        }
        return 'list';
      }
      case 'BadExpr':
        for (const part of expr.parts) this.checkExpr(part, scope, context);
        return 'invalid';
    }
  }

  private checkBinary(expr: BinaryExpr, scope: Scope, context: FunctionContext): Type {
    const left = this.checkExpr(expr.left, scope, context);
    const right = this.checkExpr(expr.right, scope, context);
    if (left === 'invalid' || right === 'invalid') return 'invalid';
    const { op } = expr;
    if (op === '&&' || op === '||') {
      for (const [side, type] of [
        [expr.left, left],
        [expr.right, right],
      ] as const) {
        if (type !== 'bool') {
          this.error('INVALID_OPERATION', side, `operator ${op} needs bool operands, but ${show(side)} is ${typeName(type)}`);
          return 'invalid';
        }
      }
      return 'bool';
    }
    if (typeof left === 'object' || typeof right === 'object') {
      this.error('INVALID_OPERATION', expr, `closures cannot be compared; call them: ${show(typeof left === 'object' ? expr.left : expr.right)}(...)`);
      return 'invalid';
    }
    if (left !== right) {
      this.error('TYPE_MISMATCH', expr, `invalid operation: ${show(expr)} (mismatched types ${typeName(left)} and ${typeName(right)})`);
      return 'invalid';
    }
    if (left === 'list') {
      this.error('INVALID_OPERATION', expr, 'lists cannot be compared; test membership with oneOf(value, list...)');
      return 'invalid';
    }
    if (left === 'bool' && op !== '==' && op !== '!=') {
      this.error('INVALID_OPERATION', expr, `operator ${op} is not defined on bool; bools are only compared with == and !=`);
      return 'invalid';
    }
    expr.operandType = left;
    return 'bool';
  }

  private checkIdent(ident: Ident, scope: Scope, context: FunctionContext): Type {
    const { name } = ident;
    if (name === '_') {
      this.error('INVALID_BLANK_USE', ident, 'cannot use _ as a value');
      return 'invalid';
    }
    const local = scope.lookup(name);
    if (local) {
      ident.binding = local;
      local.used = true;
      if (local.closure) {
        this.error('INVALID_CLOSURE_USE', ident, `${name} is a closure: call it, ${name}(...); closures cannot be passed around or compared`);
        return 'invalid';
      }
      return local.type;
    }
    const variable = VARIABLES_BY_NAME.get(name);
    if (variable) {
      ident.binding = { kind: 'variable', definition: variable };
      return variable.type;
    }
    if (name === 'true' || name === 'false') {
      ident.binding = { kind: 'constant', value: name === 'true' };
      return 'bool';
    }
    if (this.reportPredeclaredMisuse(ident, false)) return 'invalid';
    this.deferUndefined(ident, scope, context);
    return 'invalid';
  }

  /** Reports a Go or language predeclared name used where it cannot be; false if the name is not one. */
  private reportPredeclaredMisuse(ident: Ident, called: boolean): boolean {
    const { name } = ident;
    const forbidden = FORBIDDEN_BUILTINS.get(name);
    if (forbidden) {
      this.error(forbidden, ident, forbiddenMessage(forbidden, `${name} is not allowed`));
      return true;
    }
    const helper = HELPERS_BY_NAME.get(name);
    if (helper) {
      this.error('INVALID_FUNCTION_VALUE', ident, `${name} is a helper: call it, ${helperSignature(helper)}`);
      return true;
    }
    if (UNSUPPORTED_BUILTINS.has(name)) {
      this.error('UNSUPPORTED_BUILTIN', ident, `${name} is not available; the only Go built-in is len`);
      return true;
    }
    if (GO_TYPE_NAMES.has(name)) {
      if (called)
        this.error('UNSUPPORTED_CONVERSION', ident, `conversions such as ${name}(x) are not supported: every value already has the type the helpers need`);
      else this.error('SYNTAX_ERROR', ident, `${name} is a type, not a value`);
      return true;
    }
    if (name === 'nil') {
      this.error('UNSUPPORTED_NIL', ident, 'nil is not available: an empty string is "", and missing visitor data reads as ""');
      return true;
    }
    if (name === 'strings') {
      this.error('INVALID_FUNCTION_VALUE', ident, `use a function of package strings: strings.${STRINGS_MEMBERS.join(', strings.')}`);
      return true;
    }
    if (KNOWN_PACKAGES.has(name)) {
      this.reportPackage(ident, name);
      return true;
    }
    return false;
  }

  private reportPackage(at: Located, name: string): void {
    const hint = PACKAGE_HINTS[name];
    this.error(
      'FORBIDDEN_PACKAGE',
      at,
      hint ? `package ${name} is not available: ${hint}` : forbiddenMessage('FORBIDDEN_PACKAGE', `package ${name} is not available`),
    );
  }

  private deferUndefined(ident: Ident, scope: Scope, context: FunctionContext): void {
    this.pending.push({ ident, scope, from: context.closure, settled: false });
  }

  private reportUndefined(ident: Ident, scope: Scope): void {
    this.error('UNDEFINED', ident, `undefined: ${ident.name}${this.suggest(ident.name, scope)}`);
  }

  private suggest(name: string, scope: Scope): string {
    // Beyond the reported errors nobody reads the suggestion, and it is the costly part of a message.
    if (this.diagnostics.errors.length >= MAX_REPORTED_ERRORS) return '';
    const candidates: string[] = [...VARIABLES_BY_NAME.keys(), ...HELPERS.filter((h) => !h.name.includes('.')).map((h) => h.name)];
    for (let s: Scope | null = scope; s; s = s.parent) candidates.push(...s.names.keys());
    const lower = name.toLowerCase();
    const sameLetters = candidates.find((c) => c.toLowerCase() === lower);
    if (sameLetters) return ` (did you mean ${sameLetters}?)`;
    if (name.length < 4) return '';
    let best: string | null = null;
    let bestDistance = 3;
    for (const candidate of candidates) {
      const distance = editDistance(lower, candidate.toLowerCase());
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return best ? ` (did you mean ${best}?)` : '';
  }

  private checkSelectorValue(expr: SelectorExpr, scope: Scope, context: FunctionContext): Type {
    const target = expr.target;
    if (target.kind === 'Ident' && !scope.lookup(target.name) && !VARIABLES_BY_NAME.has(target.name)) {
      if (target.name === 'strings') {
        if (STRINGS_MEMBERS.includes(expr.name))
          this.error(
            'INVALID_FUNCTION_VALUE',
            expr,
            `strings.${expr.name} is a function: call it, ${helperSignature(HELPERS_BY_NAME.get(`strings.${expr.name}`) as HelperDefinition)}`,
          );
        else this.reportStringsMember(expr);
        return 'invalid';
      }
      this.reportUnknownQualifier(target, scope, context);
      return 'invalid';
    }
    const type = this.checkExpr(target, scope, context);
    if (type !== 'invalid') {
      this.error(
        'UNSUPPORTED_SELECTOR',
        expr.namePosition,
        `${show(expr)}: values have no fields; visitor data is read from predeclared variables such as country, and parameters with trackingField("x")`,
      );
    }
    return 'invalid';
  }

  private reportStringsMember(expr: SelectorExpr): void {
    const available = STRINGS_MEMBERS.map((m) => `strings.${m}`).join(', ');
    const hint =
      expr.name === 'EqualFold'
        ? '; compare strings.ToLower(a) == strings.ToLower(b)'
        : expr.name === 'Index' || expr.name === 'Split'
          ? '; use strings.Contains or containsAny'
          : '';
    this.error('UNSUPPORTED_STRINGS_FUNCTION', expr.namePosition, `strings.${expr.name} is not available; available: ${available}${hint}`);
  }

  /** `x.y` where x is not a value: a package (forbidden) or an undefined name. */
  private reportUnknownQualifier(target: Ident, scope: Scope, context: FunctionContext): void {
    if (KNOWN_PACKAGES.has(target.name)) {
      this.reportPackage(target, target.name);
      return;
    }
    if (this.reportPredeclaredMisuse(target, false)) return;
    this.deferUndefined(target, scope, context);
  }

  private checkCall(call: CallExpr, scope: Scope, context: FunctionContext): Type {
    const callee = call.callee;
    if (callee.kind === 'Ident') {
      const local = scope.lookup(callee.name);
      if (local) {
        callee.binding = local;
        local.used = true;
        if (local.closure && typeof local.type === 'object') {
          if (context.closure) this.calls.get(context.closure)?.add(local.closure);
          call.target = { kind: 'closure', binding: local };
          return this.checkClosureArguments(call, local.type, scope, context);
        }
        this.checkArguments(call, scope, context);
        if (local.type !== 'invalid')
          this.error('NOT_A_FUNCTION', callee, `cannot call ${callee.name}: it is a ${typeName(local.type)} variable, not a function`);
        return 'invalid';
      }
      if (VARIABLES_BY_NAME.has(callee.name)) {
        this.checkArguments(call, scope, context);
        this.error('NOT_A_FUNCTION', callee, `cannot call ${callee.name}: it is a predeclared variable; use it directly, e.g. ${callee.name} == ...`);
        return 'invalid';
      }
      const helper = HELPERS_BY_NAME.get(callee.name);
      if (helper) return this.checkHelperCall(call, helper, scope, context);
      this.checkArguments(call, scope, context);
      if (callee.name === 'true' || callee.name === 'false') {
        this.error('NOT_A_FUNCTION', callee, `cannot call ${callee.name}`);
        return 'invalid';
      }
      if (!this.reportPredeclaredMisuse(callee, true)) this.deferUndefined(callee, scope, context);
      return 'invalid';
    }
    if (callee.kind === 'SelectorExpr') {
      const target = callee.target;
      if (target.kind === 'Ident' && !scope.lookup(target.name) && !VARIABLES_BY_NAME.has(target.name)) {
        if (target.name === 'strings') {
          const helper = HELPERS_BY_NAME.get(`strings.${callee.name}`);
          if (helper) return this.checkHelperCall(call, helper, scope, context);
          this.checkArguments(call, scope, context);
          this.reportStringsMember(callee);
          return 'invalid';
        }
        this.checkArguments(call, scope, context);
        this.reportUnknownQualifier(target, scope, context);
        return 'invalid';
      }
      // A method call on a value.
      const receiverType = this.checkExpr(target, scope, context);
      this.checkArguments(call, scope, context);
      if (receiverType !== 'invalid') {
        const asHelper = HELPERS_BY_NAME.get(`strings.${callee.name}`);
        const suggestion = asHelper
          ? `write strings.${callee.name}(${show(target)}${asHelper.params.length > 1 ? ', ...' : ''})`
          : 'pass the value to a helper instead, e.g. strings.ToLower(x)';
        this.error('FORBIDDEN_METHOD_CALL', callee.namePosition, `method calls are not allowed (${show(callee)}(...)): ${suggestion}`);
      }
      return 'invalid';
    }
    if (callee.kind === 'FuncLit') {
      this.error(
        'INVALID_CLOSURE_USE',
        callee,
        'closures cannot be called where they are written; assign it first: name := func(...) T { ... }, then name(...)',
      );
      this.checkClosure(callee, scope);
      this.checkArguments(call, scope, context);
      return 'invalid';
    }
    const type = this.checkExpr(callee, scope, context);
    this.checkArguments(call, scope, context);
    if (type !== 'invalid') this.error('NOT_A_FUNCTION', callee, `cannot call ${show(callee)} (${typeName(type)}): it is not a function`);
    return 'invalid';
  }

  /** Checks arguments of a call that is already rejected, so names inside still resolve and count as used. */
  private checkArguments(call: CallExpr, scope: Scope, context: FunctionContext): void {
    for (const arg of call.args) this.checkExpr(arg, scope, context);
  }

  private checkClosureArguments(call: CallExpr, type: FuncType, scope: Scope, context: FunctionContext): Type {
    const types = call.args.map((arg) => this.checkExpr(arg, scope, context));
    const name = show(call.callee);
    if (call.spread)
      this.error('INVALID_SPREAD', call.args[call.args.length - 1], `${name} is a closure; ... only expands a []string list into oneOf or containsAny`);
    this.checkArgumentCount(call, name, type.params.length, false, () => `(${type.params.map((p) => TYPE_SPELLING[p]).join(', ')})`);
    call.args.forEach((arg, i) => {
      if (i < type.params.length) this.requireAssignable(arg, types[i], type.params[i], `argument to ${name}`);
    });
    return type.result;
  }

  /** `signature` is only built when there is an error to report. */
  private checkArgumentCount(call: CallExpr, name: string, wanted: number, atLeast: boolean, signature: () => string): boolean {
    const have = call.args.length;
    if (have < wanted) {
      this.error(
        'WRONG_ARGUMENT_COUNT',
        call.close,
        `not enough arguments in call to ${name}: have ${have}, want ${atLeast ? 'at least ' : ''}${wanted} ${signature()}`,
      );
      return false;
    }
    if (have > wanted && !atLeast) {
      this.error('WRONG_ARGUMENT_COUNT', call.args[wanted], `too many arguments in call to ${name}: have ${have}, want ${wanted} ${signature()}`);
      return false;
    }
    return true;
  }

  private checkHelperCall(call: CallExpr, helper: HelperDefinition, scope: Scope, context: FunctionContext): Type {
    call.target = { kind: 'helper', helper };
    const types = call.args.map((arg) => this.checkExpr(arg, scope, context));
    const variadic = helper.params[helper.params.length - 1]?.variadic === true;
    const fixed = variadic ? helper.params.length - 1 : helper.params.length;
    const signature = (): string => `(${helper.params.map((p) => `${p.name} ${p.variadic ? '...' : ''}${TYPE_SPELLING[p.type]}`).join(', ')})`;
    if (!this.checkArgumentCount(call, helper.name, fixed, variadic, signature)) return helper.result;

    if (call.spread) {
      const last = call.args[call.args.length - 1];
      if (!variadic) {
        this.error('INVALID_SPREAD', last, `${helper.name} does not take a list; ... only expands a []string into oneOf or containsAny`);
      } else if (call.args.length !== fixed + 1) {
        this.error('INVALID_SPREAD', last, `a list expanded with ... must be the only candidate: ${helper.name}(value, list...)`);
      } else if (types[types.length - 1] !== 'list' && types[types.length - 1] !== 'invalid') {
        this.error('INVALID_SPREAD', last, `cannot expand ${show(last)} (${typeName(types[types.length - 1])}) with ...; only a []string list can be expanded`);
      }
    }
    call.args.forEach((arg, i) => {
      const param = helper.params[Math.min(i, helper.params.length - 1)];
      if (call.spread && i === call.args.length - 1) return; // checked (and any error reported) above
      if (types[i] === 'list' && param.type === 'string' && variadic && i >= fixed) {
        this.error(
          'TYPE_MISMATCH',
          arg,
          `cannot use ${show(arg)} ([]string) as string value in argument to ${helper.name}; expand the list with ...: ${helper.name}(value, ${show(arg)}...)`,
        );
        return;
      }
      this.requireAssignable(arg, types[i], param.type, `argument to ${helper.name}`);
      if (param.rule && types[i] === param.type) this.checkArgumentRule(arg, param.rule, param.name, helper.name);
    });
    return helper.result;
  }

  private checkArgumentRule(arg: Expr, rule: keyof typeof ARGUMENT_RULES, parameter: string, helper: string): void {
    const value = constantValue(arg);
    if (value === undefined || ARGUMENT_RULES[rule].test(value)) return;
    const code: DiagnosticCode = rule === 'fieldName' ? 'INVALID_FIELD_NAME' : rule === 'clockTime' ? 'INVALID_CLOCK_TIME' : 'INVALID_UTC_OFFSET';
    let hint = '';
    if (rule === 'clockTime' && typeof value === 'number' && value >= 0 && value % 100 >= 60) hint = ' (minutes must be below 60)';
    if (rule === 'clockTime' && typeof value === 'number' && value >= 2400 && value % 100 < 60) hint = ' (HHMM: 2359 is the latest time)';
    this.error(code, arg, `${helper}: ${parameter} ${JSON.stringify(value)} is not ${ARGUMENT_RULES[rule].describe}${hint}`);
  }
}

function unparenthesize(expr: Expr): Expr {
  return expr.kind === 'ParenExpr' ? unparenthesize(expr.expr) : expr;
}
