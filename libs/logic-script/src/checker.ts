// Go's static rules for the script subset: scopes, types, constants, declared-and-not-used,
// terminating statements, plus the spec's own rules (literal formats, no recursion). It annotates the
// tree in place (bindings, call targets, variable numbers) for the compiler. The rule: a snippet that Go
// compiles (with the spec's variables and helpers) is valid unless the spec's Forbidden list or its
// route-key and size rules exclude it.
import type {
  Assign,
  BinaryExpr,
  Block,
  CallExpr,
  ConstDecl,
  ConstValue,
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
  TypeRef,
  VarDecl,
  VariableBinding,
} from './ast';
import { ClosureFlow } from './closure-flow';
import { constantValue, formatConstant } from './constants';
import {
  ARGUMENT_RULES,
  HelperDefinition,
  helperSignature,
  HELPERS,
  HELPERS_BY_NAME,
  STRINGS_HELPERS,
  STRINGS_MEMBERS,
  TYPE_SPELLING,
  ValueType,
  VariableDefinition,
  VARIABLES_BY_NAME,
} from './builtins';
import { DiagnosticBag, DiagnosticCode, MAX_REPORTED_ERRORS } from './diagnostics';
import { FORBIDDEN_BUILTINS, forbiddenMessage } from './forbidden';
import { fitsInt64 } from './go/ints';
import { FALLBACK_ROUTE_KEY, isRouteKey } from './rules';

export { constantValue } from './constants';

export interface CheckOptions {
  /** The parser skipped tokens: skip the analyses a missing statement would mislead (unused, missing return). */
  recovered: boolean;
}

export interface CheckResult {
  /** Valid string literals returned by the script's own return statements, in source order, deduplicated. */
  routeKeys: string[];
}

export function check(script: Script, diagnostics: DiagnosticBag, options: CheckOptions): CheckResult {
  return new Checker(diagnostics, options).checkScript(script);
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
/** Predeclared names other than variables: a local may shadow them, but they cannot be assigned. */
const PREDECLARED_NAMES = new Set<string>([
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
  if (type === 'invalid') return 'invalid type';
  if (type === 'nil') return 'untyped nil';
  if (typeof type === 'string') return TYPE_SPELLING[type];
  return `func(${type.params.map((p) => TYPE_SPELLING[p]).join(', ')}) ${TYPE_SPELLING[type.result]}`;
}

function sameType(a: Type, b: Type): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.result === b.result && a.params.length === b.params.length && a.params.every((p, i) => p === b.params[i]);
}

const isFuncType = (type: Type): type is FuncType => typeof type === 'object';

/** Short source-like rendering of an expression for messages. */
function show(expr: Expr): string {
  switch (expr.kind) {
    case 'StringLit':
      return JSON.stringify(expr.value.length > 24 ? `${expr.value.slice(0, 24)}...` : expr.value);
    case 'IntLit':
      return expr.text;
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
  /** The switch statements around the statement being checked, innermost last (what break leaves). */
  switches: SwitchStmt[];
}

/**
 * What a statement does to the control flow after it, as bit flags: LEAVES, the next statement cannot
 * run (vet's reachability); TERMINATES, a terminating statement in Go's sense (it also leaves).
 */
type Flow = number;
const CONTINUES = 0;
const LEAVES = 1;
const TERMINATES = 3;

/** A name not (yet) declared where it is used; resolved into UNDEFINED or RECURSION_NOT_ALLOWED. */
interface PendingReference {
  ident: Ident;
  scope: Scope;
  from: FuncLit | null;
  settled: boolean;
}

class Checker {
  /** Variables numbered so far (locals, and predeclared variables the script assigns). */
  private variableCount = 0;
  private readonly routeKeys: string[] = [];
  private readonly pending: PendingReference[] = [];
  /** Which closures each closure calls by name, for naming recursion through a later declaration. */
  private readonly calls = new Map<FuncLit, Set<FuncLit>>();
  private readonly closureNames = new Map<FuncLit, string>();
  private readonly flow = new ClosureFlow();
  /** One binding per predeclared variable, shared by its uses, so that an assignment can give it a number (a variable of its own). */
  private readonly variables = new Map<string, VariableBinding>();
  /** The closure whose body is being checked (null: the script's own). */
  private owner: FuncLit | null = null;
  /** Set while checking statements after a return or break: they never run. */
  private unreachable = false;
  /** The value of iota while checking the values of a const spec. */
  private iota: number | null = null;
  /** The fallthrough statement that ends the case being checked, when a case follows (where it is allowed). */
  private allowedFallthrough: Stmt | null = null;
  /** A fallthrough ending the final case, which Go rejects with its own message. */
  private finalCaseFallthrough: Stmt | null = null;

  constructor(
    private readonly diagnostics: DiagnosticBag,
    private readonly options: CheckOptions,
  ) {}

  checkScript(script: Script): CheckResult {
    const scope = new Scope(null);
    const context: FunctionContext = { result: 'string', closure: null, switches: [] };
    const flow = this.checkList(script.body, scope, context);
    this.closeScope(scope);
    if (flow !== TERMINATES && !this.options.recovered) {
      this.error(
        'MISSING_RETURN',
        script.end,
        `missing return at the end of the script: every path must return a route key; end with return "${FALLBACK_ROUTE_KEY}"`,
      );
    }
    for (const reference of this.pending) {
      if (!reference.settled) this.reportUndefined(reference.ident, reference.scope);
    }
    this.checkClosureFlow();
    return { routeKeys: [...new Set(this.routeKeys)] };
  }

  /** Recursion through func values. */
  private checkClosureFlow(): void {
    for (const { at, from, to } of this.flow.recursiveCalls()) {
      const caller = this.closureNames.get(from);
      const callee = this.closureNames.get(to);
      const cycle = from === to ? `${callee ?? 'the closure'} calls itself` : `${caller ?? 'a closure'} and ${callee ?? 'a closure'} call each other`;
      this.error('RECURSION_NOT_ALLOWED', at, `${cycle}: recursion is not allowed; write the logic without calling back`);
    }
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
    constant?: ConstValue,
  ): LocalBinding | null {
    if (ident.name === '_') return null;
    // A local may shadow any predeclared name (country := strings.ToLower(country)), as in Go.
    const previous = scope.names.get(ident.name);
    if (previous) {
      this.error('REDECLARED', ident, `${ident.name} redeclared in this block (first declared at line ${previous.line}, column ${previous.column})`);
      return null;
    }
    const binding: LocalBinding = {
      kind: 'local',
      name: ident.name,
      type,
      id: constant === undefined ? this.variableCount++ : -1,
      line: ident.line,
      column: ident.column,
      used: false,
      isParameter,
      closure,
      constant,
      reassigned: false,
      owner: this.owner,
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
      // Go does not ask for constants to be used.
      if (!binding.used && !binding.isParameter && binding.constant === undefined) {
        this.error(
          'UNUSED_VARIABLE',
          binding,
          `declared and not used: ${binding.name}${binding.closure ? ' (the closure is never called)' : ''}; use it or remove it`,
        );
      }
    }
  }

  /** `name = value` or a declaration with that value, for a name that already has its binding: closures flow through it. */
  private flowInto(binding: LocalBinding, value: Expr): void {
    if (!isFuncType(binding.type)) return;
    const source = unparenthesize(value);
    if (source.kind === 'FuncLit' && source !== binding.closure) this.flow.assign(binding, source);
    else if (source.kind === 'Ident' && source.binding?.kind === 'local' && isFuncType(source.binding.type)) this.flow.assign(binding, source.binding);
  }

  /** The type a declaration without a type gives its name: the value's, except nil, which has none. */
  private inferredType(value: Expr, type: Type): Type {
    if (type !== 'nil') return type;
    this.error('UNSUPPORTED_NIL', value, 'use of untyped nil: declare the type, e.g. var f func(string) bool');
    return 'invalid';
  }

  private countMismatch(at: Located, names: number, values: number): void {
    this.error(
      'ASSIGNMENT_COUNT_MISMATCH',
      at,
      `assignment mismatch: ${names} variable${names === 1 ? '' : 's'} but ${values} value${values === 1 ? '' : 's'}`,
    );
  }

  private checkVarDecl(statement: VarDecl, scope: Scope, context: FunctionContext): void {
    const declared: Type | null = statement.type ? this.resolveType(statement.type, scope) : null;
    const { names, values } = statement;
    if (values.length > 0 && values.length !== names.length) this.countMismatch(statement, names.length, values.length);
    // Values are checked before the names exist: in Go a variable's scope starts after its declaration.
    const types = values.map((value, i) => {
      const type = this.checkValue(value, scope, context);
      if (declared !== null && i < names.length) this.requireAssignable(value, type, declared, 'variable declaration');
      return type;
    });
    names.forEach((name, i) => {
      const paired = values.length === names.length;
      const type: Type = declared ?? (paired ? this.inferredType(values[i], types[i]) : 'invalid');
      const binding = this.declare(scope, name, type, paired ? closureLiteral(values[i]) : null, false);
      if (binding && paired) this.flowInto(binding, values[i]);
    });
  }

  private checkShortVarDecl(statement: ShortVarDecl, scope: Scope, context: FunctionContext): void {
    const { names, values } = statement;
    const paired = values.length === names.length;
    if (!paired) this.countMismatch(statement, names.length, values.length);
    const types = values.map((value) => this.checkValue(value, scope, context));
    let introducesAny = false;
    const introduces: boolean[] = [];
    names.forEach((name, i) => {
      const existing = name.name === '_' ? undefined : scope.names.get(name.name);
      if (name.name === '_') {
        introduces.push(false);
        return;
      }
      if (existing) {
        // := with an existing name of this block assigns to it (Go), provided something new is declared too.
        name.binding = existing;
        introduces.push(false);
        if (existing.constant !== undefined) this.error('INVALID_ASSIGNMENT', name, `cannot assign to ${name.name}: it is a constant`);
        else if (paired) {
          this.requireAssignable(values[i], types[i], existing.type, 'assignment');
          this.markAssigned(existing, values[i]);
        }
        return;
      }
      introducesAny = true;
      introduces.push(true);
      const binding = this.declare(scope, name, paired ? this.inferredType(values[i], types[i]) : 'invalid', paired ? closureLiteral(values[i]) : null, false);
      if (binding && paired) this.flowInto(binding, values[i]);
    });
    statement.introduces = introduces;
    if (!introducesAny && names.length > 0) {
      this.error('NO_NEW_VARIABLES', statement, 'no new variables on the left side of :=; use = to assign to an existing variable');
    }
  }

  /** An assignment to a local after its declaration. */
  private markAssigned(binding: LocalBinding, value: Expr): void {
    binding.reassigned = true;
    this.flowInto(binding, value);
  }

  /**
   * `const x = 1`, `const x int = 1` or a spec of a group. Go's constants: the value must be constant;
   * constants may go unused; an untyped integer constant may exceed int64 until it is used as an int.
   */
  private checkConstDecl(statement: ConstDecl, scope: Scope, context: FunctionContext): void {
    let declared: Type | null = statement.type ? this.resolveType(statement.type, scope) : null;
    if (declared !== null && declared !== 'invalid' && typeof declared !== 'string') {
      this.error('NOT_CONSTANT', statement.type as TypeRef, `invalid constant type ${typeName(declared)}: constants are strings, ints or bools`);
      declared = 'invalid';
    } else if (declared === 'list') {
      this.error('NOT_CONSTANT', statement.type as TypeRef, 'invalid constant type []string: constants are strings, ints or bools');
      declared = 'invalid';
    }
    const { names, values } = statement;
    if (names.length !== values.length) {
      const at = values.length > names.length ? values[names.length] : names[values.length];
      this.error(
        'MISSING_CONSTANT_VALUE',
        at,
        values.length > names.length ? 'extra init expression in const declaration' : `missing init expression for ${names[values.length].name}`,
      );
    }
    this.iota = statement.iota;
    const constants = values.map((value) => {
      const type = this.checkExpr(value, scope, context);
      if (type === 'invalid') return { type, value: undefined };
      const constant = constantValue(value);
      if (constant === undefined) {
        this.error('NOT_CONSTANT', value, `${show(value)} (value of type ${typeName(type)}) is not constant`);
        return { type: 'invalid' as Type, value: undefined };
      }
      if (declared !== null) {
        this.requireAssignable(value, type, declared, 'constant declaration');
        if (declared === 'int' && !this.requireInt64(value)) return { type: 'invalid' as Type, value: undefined };
      }
      return { type: declared ?? type, value: constant };
    });
    this.iota = null;
    names.forEach((name, i) => {
      const constant = constants[i];
      // A constant in error still gets declared (as invalid), so that its uses report nothing more.
      this.declare(scope, name, constant && constant.value !== undefined ? constant.type : 'invalid', null, false, constant?.value ?? 0);
    });
  }

  // ---- types written in the source ---------------------------------------------------------------

  /** The type a type expression names; a local shadowing string, int or bool makes the name no type (as in Go). */
  private resolveType(ref: TypeRef, scope: Scope): Type {
    if (ref.name === 'invalid') return 'invalid';
    if (ref.name === 'func') {
      const params = (ref.params ?? []).map((p) => ({ ref: p, type: this.resolveType(p, scope) }));
      const results = (ref.results ?? []).map((r) => ({ ref: r, type: this.resolveType(r, scope) }));
      return this.signature(ref, params, results);
    }
    const spelled = ref.name === 'list' ? 'string' : ref.name;
    const local = scope.lookup(spelled);
    if (local) {
      this.error('NOT_A_TYPE', ref, `${spelled} is not a type here: the local ${spelled} declared at line ${local.line} shadows it`);
      return 'invalid';
    }
    return ref.name;
  }

  /** The type of a closure or func type from its parameter and result types, by the spec's closure rules. */
  private signature(at: Located, params: { ref: Located; type: Type; name?: string }[], results: { ref: Located; type: Type }[]): Type {
    let valid = true;
    const types: ValueType[] = [];
    for (const param of params) {
      if (param.type === 'invalid') valid = false;
      else if (param.type === 'string' || param.type === 'int' || param.type === 'bool') types.push(param.type);
      else {
        valid = false;
        this.error(
          'INVALID_CLOSURE_SIGNATURE',
          param.ref,
          `${param.name ? `parameter ${param.name}` : 'a parameter'} has type ${typeName(param.type)}; closure parameters are bool, int or string`,
        );
      }
    }
    if (results.length !== 1) {
      this.error(
        'INVALID_CLOSURE_SIGNATURE',
        at,
        results.length === 0
          ? 'closures must return exactly one bool, int or string: add the result type, e.g. func(d string) bool { ... }'
          : 'closures return exactly one value: choose one bool, int or string result',
      );
      return 'invalid';
    }
    const result = results[0].type;
    if (result === 'invalid') return 'invalid';
    if (result !== 'string' && result !== 'int' && result !== 'bool') {
      this.error('INVALID_CLOSURE_SIGNATURE', results[0].ref, `closures cannot return ${typeName(result)}; return a bool, int or string`);
      return 'invalid';
    }
    return valid ? ({ kind: 'func', params: types, result } satisfies FuncType) : 'invalid';
  }

  /** Checks a closure literal and returns its type; a name it is being declared as is not in scope inside (Go). */
  private checkClosure(literal: FuncLit, scope: Scope): Type {
    const params = literal.params.map((p) => ({ ref: p.type as Located, type: this.resolveType(p.type, scope), name: p.name }));
    const results = literal.results.map((r) => ({ ref: r as Located, type: this.resolveType(r, scope) }));
    const type = this.signature(literal, params, results);
    const written = results.length === 1 ? results[0].type : 'invalid';
    const result = isFuncType(type) ? type.result : written === 'string' || written === 'int' || written === 'bool' ? written : 'invalid';
    this.checkFunctionBody(literal, scope, params, { result, closure: literal, switches: [] });
    return type;
  }

  private checkFunctionBody(literal: FuncLit, scope: Scope, params: { type: Type }[], inner: FunctionContext): void {
    if (!this.calls.has(literal)) this.calls.set(literal, new Set());
    const owner = this.owner;
    this.owner = literal;
    // Parameters and the body's top-level declarations share one block, as in Go.
    const bodyScope = new Scope(scope);
    literal.params.forEach((param, i) => {
      const type = params[i].type;
      param.binding = this.declare(bodyScope, param, type === 'list' || typeof type === 'object' ? 'invalid' : type, null, true) ?? undefined;
    });
    const flow = this.checkList(literal.body.body, bodyScope, inner);
    this.closeScope(bodyScope);
    this.owner = owner;
    if (flow !== TERMINATES && !this.options.recovered && inner.result !== 'invalid') {
      this.error('MISSING_RETURN', literal.body.close, `missing return at the end of the closure: every path must return a ${TYPE_SPELLING[inner.result]}`);
    }
  }

  // ---- statements --------------------------------------------------------------------------------

  /**
   * Checks a statement list. As in Go, it terminates when its last statement does; statements after a
   * return (or a break) never run: they are still checked, reported once as a warning, and the keys
   * they return are not keys the script can return.
   */
  private checkList(list: Stmt[], scope: Scope, context: FunctionContext): Flow {
    const wasUnreachable = this.unreachable;
    let leaves = false;
    let last: Flow = CONTINUES;
    for (let i = 0; i < list.length; i++) {
      const statement = list[i];
      if (leaves && !this.unreachable) {
        this.unreachable = true;
        this.diagnostics.warning(
          'UNREACHABLE_CODE',
          statement,
          'unreachable code: every path before this statement has already returned, so it never runs (the first return wins); remove it or move it above the return',
        );
      }
      last = this.checkStatement(statement, scope, context);
      if (last !== CONTINUES) leaves = true;
    }
    this.unreachable = wasUnreachable;
    // As in Go, a list terminates when its last statement does; it leaves when any statement does.
    return last === TERMINATES ? TERMINATES : leaves ? LEAVES : CONTINUES;
  }

  private checkStatement(statement: Stmt, scope: Scope, context: FunctionContext): Flow {
    switch (statement.kind) {
      case 'VarDecl':
        this.checkVarDecl(statement, scope, context);
        return CONTINUES;
      case 'ConstDecl':
        this.checkConstDecl(statement, scope, context);
        return CONTINUES;
      case 'ShortVarDecl':
        this.checkShortVarDecl(statement, scope, context);
        return CONTINUES;
      case 'Assign':
        this.checkAssign(statement, scope, context);
        return CONTINUES;
      case 'ExprStmt':
        this.checkExpressionStatement(statement.expr, scope, context);
        return CONTINUES;
      case 'ReturnStmt':
        this.checkReturn(statement, scope, context);
        return TERMINATES;
      case 'BreakStmt': {
        const target = context.switches[context.switches.length - 1];
        if (target) target.hasBreak = true;
        else this.error('UNSUPPORTED_BRANCH', statement, 'break is not in a switch: there are no loops; return a route key where the decision is made');
        return LEAVES;
      }
      case 'FallthroughStmt':
        if (statement !== this.allowedFallthrough) {
          this.error(
            'UNSUPPORTED_BRANCH',
            statement,
            context.switches.length > 0 && this.finalCaseFallthrough === statement
              ? 'cannot fallthrough final case in switch'
              : 'fallthrough statement out of place: it can only end a case of a switch',
          );
        }
        return LEAVES;
      case 'Block':
        return this.checkBlock(statement, scope, context);
      case 'IfStmt':
        return this.checkIf(statement, scope, context);
      case 'SwitchStmt':
        return this.checkSwitch(statement, scope, context);
    }
  }

  private checkBlock(block: Block, scope: Scope, context: FunctionContext): Flow {
    const inner = new Scope(scope);
    const flow = this.checkList(block.body, inner, context);
    this.closeScope(inner);
    return flow;
  }

  private checkAssign(statement: Assign, scope: Scope, context: FunctionContext): void {
    const { targets, values } = statement;
    const paired = targets.length === values.length;
    if (!paired) this.countMismatch(statement, targets.length, values.length);
    const types = values.map((value) => this.checkValue(value, scope, context));
    targets.forEach((target, i) => {
      const targetType = this.checkAssignTarget(target, scope, context);
      if (targetType === null || !paired) return;
      this.requireAssignable(values[i], types[i], targetType, 'assignment');
      if (target.kind === 'Ident' && target.binding?.kind === 'local') this.markAssigned(target.binding, values[i]);
    });
  }

  /** The type a target accepts, or null when it cannot be assigned (already reported) or is `_`. */
  private checkAssignTarget(target: Expr, scope: Scope, context: FunctionContext): Type | null {
    if (target.kind === 'Ident') {
      if (target.name === '_') return null;
      const local = scope.lookup(target.name);
      if (local) {
        target.binding = local;
        if (local.constant !== undefined) {
          this.error('INVALID_ASSIGNMENT', target, `cannot assign to ${target.name}: it is a constant`);
          return null;
        }
        return local.type;
      }
      const variable = VARIABLES_BY_NAME.get(target.name);
      if (variable) {
        // Go's predeclared variables are package variables: assigning one changes what the script reads after.
        const binding = this.variableBinding(target.name, variable);
        binding.id ??= this.variableCount++;
        target.binding = binding;
        return variable.type;
      }
      if (PREDECLARED_NAMES.has(target.name)) {
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
    this.error('INVALID_ASSIGNMENT', target, `cannot assign to ${show(target)}: only variables can be assigned`);
    return null;
  }

  private variableBinding(name: string, definition: VariableDefinition): VariableBinding {
    let binding = this.variables.get(name);
    if (!binding) this.variables.set(name, (binding = { kind: 'variable', definition, id: null }));
    return binding;
  }

  private checkExpressionStatement(expr: Expr, scope: Scope, context: FunctionContext): void {
    if (expr.kind === 'CallExpr') {
      this.checkCall(expr, scope, context);
      const target = expr.target;
      if (target?.kind === 'conversion') this.error('UNUSED_EXPRESSION', expr, `${show(expr)} is evaluated but not used`);
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
    const types = statement.values.map((value) => this.checkValue(value, scope, context));
    if (statement.values.length > 1) {
      this.error('RETURN_COUNT_MISMATCH', statement.values[1], `too many return values: return exactly one ${what}`);
      return;
    }
    const value = statement.values[0];
    if (expected !== 'invalid') this.requireAssignable(value, types[0], expected, 'return statement');
    if (!atScript || types[0] !== 'string') return;
    const literal = unparenthesize(value);
    // A literal or another constant is a key known in advance.
    const key = constantValue(literal);
    if (typeof key === 'string') {
      // The route-key rule holds for every literal the script returns, reachable or not.
      if (isRouteKey(key)) {
        if (!this.unreachable) this.routeKeys.push(key);
      } else {
        this.error(
          'INVALID_ROUTE_KEY',
          literal,
          `invalid route key ${JSON.stringify(key)}: use 1 to 64 lowercase letters, digits or underscores${/[A-Z]/.test(key) && isRouteKey(key.toLowerCase()) ? ` (e.g. "${key.toLowerCase()}")` : ''}`,
        );
      }
    } else if (!this.unreachable) {
      this.diagnostics.warning(
        'NON_LITERAL_ROUTE_KEY',
        value,
        `the script returns ${show(value)}, whose key cannot be checked in advance; visitors get "${FALLBACK_ROUTE_KEY}" at run time when it matches no connection`,
      );
    }
  }

  private checkIf(statement: IfStmt, scope: Scope, context: FunctionContext): Flow {
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
    const then = this.checkBlock(statement.then, ifScope, context);
    let otherwise: Flow = CONTINUES;
    if (statement.otherwise) {
      otherwise =
        statement.otherwise.kind === 'IfStmt' ? this.checkIf(statement.otherwise, ifScope, context) : this.checkBlock(statement.otherwise, ifScope, context);
    }
    this.closeScope(ifScope);
    return then & otherwise;
  }

  private checkSwitch(statement: SwitchStmt, scope: Scope, context: FunctionContext): Flow {
    const switchScope = new Scope(scope);
    if (statement.init) this.checkStatement(statement.init, switchScope, context);
    let tagType: Type = 'bool';
    if (statement.tag) {
      tagType = this.checkValue(statement.tag, switchScope, context);
      if (tagType === 'list' || tagType === 'nil' || isFuncType(tagType)) {
        this.error('INVALID_OPERATION', statement.tag, `cannot switch on ${show(statement.tag)} (${typeName(tagType)}); switch on a string, int or bool`);
        tagType = 'invalid';
      }
    }
    const seen = new Map<ConstValue, Located>();
    let defaultClause: Located | null = null;
    let allTerminate = true;
    context.switches.push(statement);
    const allowedFallthrough = this.allowedFallthrough;
    const finalCaseFallthrough = this.finalCaseFallthrough;
    for (let index = 0; index < statement.clauses.length; index++) {
      const clause = statement.clauses[index];
      if (clause.values === null) {
        if (defaultClause) this.error('DUPLICATE_DEFAULT', clause, `multiple defaults in switch (first at line ${defaultClause.line})`);
        else defaultClause = clause;
      } else {
        for (const value of clause.values) {
          const type = statement.tag ? this.checkValue(value, switchScope, context) : this.checkExpr(value, switchScope, context);
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
          if (constant !== undefined && typeof constant !== 'boolean' && statement.tag) {
            const first = seen.get(constant);
            if (first) this.error('DUPLICATE_CASE', value, `duplicate case ${show(value)} in switch (first at line ${first.line}, column ${first.column})`);
            else seen.set(constant, value);
          }
        }
      }
      const last = clause.body[clause.body.length - 1];
      const endsInFallthrough = last?.kind === 'FallthroughStmt';
      const isFinal = index === statement.clauses.length - 1;
      this.allowedFallthrough = endsInFallthrough && !isFinal ? last : null;
      this.finalCaseFallthrough = endsInFallthrough && isFinal ? last : null;
      const clauseScope = new Scope(switchScope);
      const flow = this.checkList(clause.body, clauseScope, context);
      this.allowedFallthrough = allowedFallthrough;
      this.finalCaseFallthrough = finalCaseFallthrough;
      this.closeScope(clauseScope);
      allTerminate = allTerminate && (flow === TERMINATES || endsInFallthrough);
    }
    context.switches.pop();
    this.closeScope(switchScope);
    // A switch terminates (and leaves) when it has a default, every case terminates and no break leaves it.
    return defaultClause !== null && allTerminate && !statement.hasBreak ? TERMINATES : CONTINUES;
  }

  // ---- expressions -------------------------------------------------------------------------------

  private requireAssignable(value: Expr, type: Type, expected: Type, where: string): void {
    if (type === 'invalid' || expected === 'invalid') return;
    if (type === 'nil') {
      if (isFuncType(expected) || expected === 'list') this.typeNil(value, expected);
      else {
        this.error(
          'UNSUPPORTED_NIL',
          value,
          `cannot use nil as ${typeName(expected)} value in ${where}: nil is only a func value or a []string${expected === 'string' ? '; an empty string is ""' : ''}`,
        );
      }
      return;
    }
    if (!sameType(type, expected)) {
      const hint = type === 'list' && expected === 'string' ? '; lists can only be expanded into oneOf or containsAny with ...' : '';
      this.error('TYPE_MISMATCH', value, `cannot use ${show(value)} (${typeName(type)}) as ${typeName(expected)} value in ${where}${hint}`);
    }
  }

  /** Records which nil an expression that is nil stands for: the compiler gives each its own value. */
  private typeNil(value: Expr, type: Type): void {
    const nil = unparenthesize(value);
    if (nil.kind === 'Ident') nil.nilType = type === 'list' ? 'list' : 'func';
  }

  /** An expression used as a value of its type: an untyped integer constant has to fit int. */
  private checkValue(expr: Expr, scope: Scope, context: FunctionContext): Type {
    const type = this.checkExpr(expr, scope, context);
    if (type === 'int') this.requireInt64(expr);
    return type;
  }

  /** Reports an integer constant that overflows int (Go checks this wherever a constant becomes an int). */
  private requireInt64(expr: Expr): boolean {
    if (!mayBeLargeConstant(expr)) return true;
    const value = constantValue(expr);
    if (typeof value !== 'bigint' || fitsInt64(value)) return true;
    this.error(
      'INTEGER_OUT_OF_RANGE',
      expr,
      `cannot use ${show(expr)} (untyped int constant ${value}) as int value: it overflows int, whose values are -9223372036854775808 to 9223372036854775807`,
    );
    return false;
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
        return this.checkClosure(expr, scope);
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
    if (left === 'nil' || right === 'nil') return this.checkNilComparison(expr, left, right);
    if (isFuncType(left) || isFuncType(right)) {
      this.error(
        'INVALID_CLOSURE_USE',
        expr,
        `invalid operation: ${show(expr)}: a func can only be compared to nil; call it: ${show(isFuncType(left) ? expr.left : expr.right)}(...)`,
      );
      return 'invalid';
    }
    if (left !== right) {
      this.error('TYPE_MISMATCH', expr, `invalid operation: ${show(expr)} (mismatched types ${typeName(left)} and ${typeName(right)})`);
      return 'invalid';
    }
    if (left === 'list') {
      this.error('INVALID_OPERATION', expr, 'a []string can only be compared to nil; test membership with oneOf(value, list...)');
      return 'invalid';
    }
    if (left === 'bool' && op !== '==' && op !== '!=') {
      this.error('INVALID_OPERATION', expr, `operator ${op} is not defined on bool; bools are only compared with == and !=`);
      return 'invalid';
    }
    // Unless both sides are constant (a constant comparison), a constant side becomes an int.
    if (left === 'int' && (mayBeLargeConstant(expr.left) || mayBeLargeConstant(expr.right)) && constantValue(expr) === undefined) {
      this.requireInt64(expr.left);
      this.requireInt64(expr.right);
    }
    expr.operandType = left;
    return 'bool';
  }

  /** `f == nil`, `list != nil`: the only comparisons of funcs and lists Go allows. */
  private checkNilComparison(expr: BinaryExpr, left: Type, right: Type): Type {
    const { op } = expr;
    const [nil, other, otherType] = left === 'nil' ? [expr.left, expr.right, right] : [expr.right, expr.left, left];
    if (otherType === 'nil') {
      this.error('INVALID_OPERATION', expr, `invalid operation: ${show(expr)} (operator ${op} not defined on nil)`);
      return 'invalid';
    }
    if (!isFuncType(otherType) && otherType !== 'list') {
      this.error(
        'UNSUPPORTED_NIL',
        nil,
        `invalid operation: ${show(expr)} (mismatched types ${typeName(otherType)} and untyped nil): nil is only a func value or a []string${otherType === 'string' ? '; compare with "" for an empty or missing value' : ''}`,
      );
      return 'invalid';
    }
    if (op !== '==' && op !== '!=') {
      this.error('INVALID_OPERATION', expr, `invalid operation: ${show(expr)} (operator ${op} not defined on ${show(other)} (${typeName(otherType)}))`);
      return 'invalid';
    }
    this.typeNil(nil, otherType);
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
      if (typeof local.type === 'object') local.valueRead = true;
      return local.type;
    }
    const variable = VARIABLES_BY_NAME.get(name);
    if (variable) {
      ident.binding = this.variableBinding(name, variable);
      return variable.type;
    }
    if (name === 'true' || name === 'false') {
      ident.binding = { kind: 'constant', value: name === 'true' };
      return 'bool';
    }
    if (name === 'nil') {
      ident.binding = { kind: 'nil' };
      return 'nil';
    }
    if (name === 'iota' && this.iota !== null) {
      ident.binding = { kind: 'constant', value: this.iota };
      return 'int';
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
    if (name === 'iota') {
      this.error('UNSUPPORTED_BUILTIN', ident, 'cannot use iota outside a constant declaration');
      return true;
    }
    if (UNSUPPORTED_BUILTINS.has(name)) {
      this.error('UNSUPPORTED_BUILTIN', ident, `${name} is not available; the only Go built-in is len`);
      return true;
    }
    if (GO_TYPE_NAMES.has(name)) {
      if (called)
        this.error(
          'UNSUPPORTED_CONVERSION',
          ident,
          `${name} is not a type of the language: the types are string, int, bool and []string (string(x) of an int x gives the character with that code)`,
        );
      else this.error('NOT_A_FUNCTION', ident, `${name} is a type, not a value`);
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
    let callee = call.callee;
    while (callee.kind === 'ParenExpr') callee = callee.expr; // (f)(x) is f(x)
    if (callee.kind === 'Ident') {
      const local = scope.lookup(callee.name);
      if (local) {
        callee.binding = local;
        local.used = true;
        if (isFuncType(local.type)) {
          if (local.closure && context.closure) this.calls.get(context.closure)?.add(local.closure);
          this.flow.call(context.closure, local, call);
          call.target = { kind: 'value', binding: local, type: local.type };
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
      if (callee.name === 'string' || callee.name === 'int' || callee.name === 'bool') return this.checkConversion(call, callee.name, scope, context);
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
          const helper = STRINGS_HELPERS.get(callee.name);
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
      // func(...) T { ... }(args): called where it is written.
      const type = this.checkClosure(callee, scope);
      call.target = { kind: 'literal', literal: callee };
      this.flow.call(context.closure, callee, call);
      if (isFuncType(type)) return this.checkClosureArguments(call, type, scope, context);
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

  /** T(x) for T string, int or bool: the conversions Go allows between the language's types. */
  private checkConversion(call: CallExpr, to: ValueType, scope: Scope, context: FunctionContext): Type {
    call.target = { kind: 'conversion', to };
    if (call.args.length !== 1 || call.spread) {
      this.checkArguments(call, scope, context);
      const at = call.args.length === 0 ? call.close : call.args[call.spread ? call.args.length - 1 : 1];
      this.error('WRONG_ARGUMENT_COUNT', at, `a conversion to ${to} takes exactly one value: ${to}(x)`);
      return to;
    }
    const arg = call.args[0];
    // string(x) of an integer constant of any size is a constant ("\uFFFD" outside the code points); int(x) has to fit int.
    const type = to === 'int' ? this.checkValue(arg, scope, context) : this.checkExpr(arg, scope, context);
    if (type === 'invalid' || type === to) return to;
    if (to === 'string' && type === 'int') {
      this.diagnostics.warning(
        'STRING_FROM_INT',
        call,
        `conversion from int to string yields a string of one rune, not a string of digits: ${show(call)} is the character with code ${show(arg)}`,
      );
      return to;
    }
    this.error('INVALID_CONVERSION', arg, `cannot convert ${show(arg)} (${typeName(type)}) to type ${to}`);
    return to;
  }

  private checkClosureArguments(call: CallExpr, type: FuncType, scope: Scope, context: FunctionContext): Type {
    const types = call.args.map((arg) => this.checkValue(arg, scope, context));
    const name = call.callee.kind === 'FuncLit' ? 'func literal' : show(call.callee);
    if (call.spread)
      this.error('INVALID_SPREAD', call.args[call.args.length - 1], `${name} is a closure; ... only expands a []string list into oneOf or containsAny`);
    this.checkArgumentCount(call, name, type.params.length, false, type);
    for (let i = 0; i < call.args.length && i < type.params.length; i++) {
      if (types[i] !== type.params[i]) this.requireAssignable(call.args[i], types[i], type.params[i], `argument to ${name}`);
    }
    return type.result;
  }

  private checkArgumentCount(call: CallExpr, name: string, wanted: number, atLeast: boolean, callee: HelperDefinition | FuncType): boolean {
    const have = call.args.length;
    if (have < wanted) {
      this.error(
        'WRONG_ARGUMENT_COUNT',
        call.close,
        `not enough arguments in call to ${name}: have ${have}, want ${atLeast ? 'at least ' : ''}${wanted} ${parameterList(callee)}`,
      );
      return false;
    }
    if (have > wanted && !atLeast) {
      this.error('WRONG_ARGUMENT_COUNT', call.args[wanted], `too many arguments in call to ${name}: have ${have}, want ${wanted} ${parameterList(callee)}`);
      return false;
    }
    return true;
  }

  private checkHelperCall(call: CallExpr, helper: HelperDefinition, scope: Scope, context: FunctionContext): Type {
    call.target = { kind: 'helper', helper };
    if (helper.name === 'len' && call.args.length === 1 && !call.spread) {
      // Go's len: the bytes of a string, or the elements of a []string.
      const type = this.checkExpr(call.args[0], scope, context);
      if (type !== 'string' && type !== 'list' && type !== 'invalid') {
        this.error('TYPE_MISMATCH', call.args[0], `invalid argument: ${show(call.args[0])} (${typeName(type)}) for len, which takes a string or a []string`);
      }
      return 'int';
    }
    const { args } = call;
    const types: Type[] = new Array(args.length);
    for (let i = 0; i < args.length; i++) types[i] = this.checkValue(args[i], scope, context);
    const variadic = helper.params[helper.params.length - 1]?.variadic === true;
    const fixed = variadic ? helper.params.length - 1 : helper.params.length;
    if (!this.checkArgumentCount(call, helper.name, fixed, variadic, helper)) return helper.result;

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
    for (let i = 0; i < args.length; i++) {
      const arg = args[i];
      const param = helper.params[Math.min(i, helper.params.length - 1)];
      if (call.spread && i === args.length - 1) continue; // checked (and any error reported) above
      if (types[i] === 'list' && param.type === 'string' && variadic && i >= fixed) {
        this.error(
          'TYPE_MISMATCH',
          arg,
          `cannot use ${show(arg)} ([]string) as string value in argument to ${helper.name}; expand the list with ...: ${helper.name}(value, ${show(arg)}...)`,
        );
        continue;
      }
      if (types[i] !== param.type) this.requireAssignable(arg, types[i], param.type, `argument to ${helper.name}`);
      else if (param.rule) this.checkArgumentRule(arg, param.rule, param.name, helper.name);
    }
    return helper.result;
  }

  private checkArgumentRule(arg: Expr, rule: keyof typeof ARGUMENT_RULES, parameter: string, helper: string): void {
    const value = constantValue(arg);
    if (value === undefined || (typeof value === 'bigint' && !fitsInt64(value))) return; // an overflow, already reported
    const literal = unparenthesize(arg);
    if (rule === 'clockTime' && literal.kind === 'IntLit' && literal.text.length > 1 && literal.text.charCodeAt(0) === 48 && /^0[0-7_]+$/.test(literal.text)) {
      this.diagnostics.warning(
        'OCTAL_CLOCK_TIME',
        literal,
        `${literal.text} has a leading 0, so Go reads it as octal: it is ${formatConstant(value)}${ARGUMENT_RULES.clockTime.test(value) ? ` (${String(Math.floor((value as number) / 100)).padStart(2, '0')}:${String((value as number) % 100).padStart(2, '0')})` : ''}; write HHMM without the 0, e.g. ${literal.text.replace(/^[0_]+/, '') || '0'}`,
      );
    }
    if (ARGUMENT_RULES[rule].test(value)) return;
    const code: DiagnosticCode = rule === 'fieldName' ? 'INVALID_FIELD_NAME' : rule === 'clockTime' ? 'INVALID_CLOCK_TIME' : 'INVALID_UTC_OFFSET';
    let hint = '';
    if (rule === 'clockTime' && typeof value === 'number' && value >= 0 && value % 100 >= 60) hint = ' (minutes must be below 60)';
    if (rule === 'clockTime' && typeof value === 'number' && value >= 2400 && value % 100 < 60) hint = ' (HHMM: 2359 is the latest time)';
    this.error(code, arg, `${helper}: ${parameter} ${formatConstant(value)} is not ${ARGUMENT_RULES[rule].describe}${hint}`);
  }
}

/** `(value string, candidates ...string)` of a helper, `(string, int)` of a func type: for messages. */
function parameterList(callee: HelperDefinition | FuncType): string {
  if ('kind' in callee) return `(${callee.params.map((p) => TYPE_SPELLING[p]).join(', ')})`;
  return `(${callee.params.map((p) => `${p.name} ${p.variadic ? '...' : ''}${TYPE_SPELLING[p.type]}`).join(', ')})`;
}

/** Whether an expression can be an integer constant outside the safe range (the only ones that may overflow int). */
function mayBeLargeConstant(expr: Expr): boolean {
  switch (expr.kind) {
    case 'IntLit':
      return typeof expr.value === 'bigint';
    case 'Ident': {
      const binding = expr.binding;
      if (binding === undefined) return false;
      if (binding.kind === 'local') return typeof binding.constant === 'bigint';
      return binding.kind === 'constant' && typeof binding.value === 'bigint';
    }
    case 'ParenExpr':
      return mayBeLargeConstant(expr.expr);
    case 'UnaryExpr':
      return mayBeLargeConstant(expr.operand);
    case 'CallExpr':
      return expr.target?.kind === 'conversion' && expr.args.length === 1 && mayBeLargeConstant(expr.args[0]);
    default:
      return false;
  }
}

/** The closure literal a declaration gives its name, if the value is one. */
function closureLiteral(value: Expr): FuncLit | null {
  const literal = unparenthesize(value);
  return literal.kind === 'FuncLit' ? literal : null;
}

function unparenthesize(expr: Expr): Expr {
  return expr.kind === 'ParenExpr' ? unparenthesize(expr.expr) : expr;
}
