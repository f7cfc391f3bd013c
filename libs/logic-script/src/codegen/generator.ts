// Writes one plain JavaScript function per checked script. Nothing the author wrote reaches the
// source as text: locals become generated names (l<n>, t<n>), string constants are written by
// JSON.stringify, integers from their values, and every other value the code needs (helpers, messages
// naming the author's identifiers, constant lists) is passed in as a parameter k<n> of the function
// that builds the script. The language has no loops and no recursion, so each declaration runs at most
// once per call of the closure (or evaluation of the script) that holds it: locals are hoisted to one
// `let` per function, and JavaScript's own closures give each call its own variables, as Go does.
import type { BinaryExpr, CallExpr, Expr, FuncLit, Ident, LocalBinding, Script, Stmt, SwitchStmt, Type, VariableBinding } from '../ast';
import { ARGUMENT_RULES, HelperDefinition, requireArgument } from '../builtins';
import { constantValue } from '../constants';
import { negateInt64 } from '../go/ints';
import { compareStrings, runeToString } from '../go/strings';
import { NIL_LIST, RuntimeFailure, RuntimeValue } from '../runtime';

/** The source of a function `(k0, k1, ...) => (env) => value`, and the values to pass as k0, k1, ... */
export interface GeneratedScript {
  source: string;
  parameters: string[];
  values: unknown[];
}

/** A visitor attribute as a script reads it: "" unless it is a string. */
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** string(x) of a value the checker typed as a string or an int. */
const toText = (value: RuntimeValue): string => (typeof value === 'string' ? value : runeToString(value as number | bigint));

type Target = { binding: LocalBinding | VariableBinding | undefined; declares: boolean };

/** What is known about the JavaScript function being written: a closure literal's, or the script's (literal null). */
interface FunctionFrame {
  literal: FuncLit | null;
  parent: FunctionFrame | null;
  /** Names its `let` declares: its locals and temporaries. */
  locals: string[];
  /** It uses a variable of a function around it (so it cannot be written once, outside the script). */
  captures: boolean;
}

/** `answers`: what the script function returns instead of a literal key it returns (see compileScript). */
export function generateScript(script: Script, answers: ReadonlyMap<string, object> = new Map()): GeneratedScript {
  return new Generator(answers).script(script);
}

class Generator {
  private readonly values: unknown[] = [];
  private readonly valueNames = new Map<unknown, string>();
  /** Closures that use nothing around them, written once beside the script function and called with env. */
  private readonly hoisted: string[] = [];
  private readonly hoistedNames = new Map<FuncLit, string>();
  /** Predeclared variables the script assigns: script-level locals, read from the visitor on first use. */
  private readonly assignedVariables = new Set<number>();
  private frame: FunctionFrame = { literal: null, parent: null, locals: [], captures: false };
  private temporaries = 0;

  constructor(private readonly answers: ReadonlyMap<string, object>) {}

  script(script: Script): GeneratedScript {
    const body = this.list(script.body);
    const scriptFrame = this.frame;
    for (const id of this.assignedVariables) scriptFrame.locals.push(localName(id));
    const source = ["'use strict';", ...this.hoisted, `return function script(env) {${declare(scriptFrame.locals)}${body}return void 0;};`].join('\n');
    return { source, parameters: this.values.map((_, i) => `k${i}`), values: this.values };
  }

  /** The name of a value the generated code receives as a parameter (one per distinct value). */
  private value(value: unknown): string {
    let name = this.valueNames.get(value);
    if (name === undefined) {
      name = `k${this.values.length}`;
      this.values.push(value);
      this.valueNames.set(value, name);
    }
    return name;
  }

  private temporary(): string {
    const name = `t${this.temporaries++}`;
    this.frame.locals.push(name);
    return name;
  }

  /** JavaScript for a constant of the language. */
  private literal(value: RuntimeValue): string {
    switch (typeof value) {
      case 'string':
        return JSON.stringify(value);
      case 'number':
        return value < 0 ? `(${String(value)})` : String(value);
      case 'bigint':
        return `(${value.toString()}n)`;
      case 'boolean':
        return value ? 'true' : 'false';
      default:
        return value === null ? 'null' : this.value(value);
    }
  }

  // ---- statements --------------------------------------------------------------------------------

  private list(statements: Stmt[]): string {
    let out = '';
    for (const statement of statements) out += this.statement(statement);
    return out;
  }

  private statement(statement: Stmt): string {
    switch (statement.kind) {
      case 'VarDecl': {
        const bindings = statement.names.map((n) => n.binding as LocalBinding | undefined);
        if (statement.values.length === 0) {
          return this.assign(
            bindings.map((binding) => ({ binding, declares: true })),
            bindings.map((binding) => this.literal(zeroValue(binding?.type))),
          );
        }
        return this.declaration(bindings, statement.values);
      }
      case 'ShortVarDecl':
        return this.declaration(
          statement.names.map((n, i) => {
            const binding = n.binding?.kind === 'local' ? n.binding : undefined;
            return binding && statement.introduces?.[i] === false ? { assigns: binding } : binding;
          }),
          statement.values,
        );
      case 'ConstDecl':
      case 'FallthroughStmt': // written by its switch
        return '';
      case 'Assign':
        return this.assign(
          statement.targets.map((t) => ({
            binding: t.kind === 'Ident' ? (t.binding as LocalBinding | VariableBinding | undefined) : undefined,
            declares: false,
          })),
          statement.values.map((v) => this.expr(v)),
        );
      case 'BreakStmt':
        return 'break;';
      case 'ExprStmt':
        return `${this.expr(statement.expr)};`;
      case 'ReturnStmt': {
        const value = statement.values[0];
        const key = this.frame.literal === null ? constantValue(value) : undefined;
        const answer = typeof key === 'string' ? this.answers.get(key) : undefined;
        return `return ${answer !== undefined ? this.value(answer) : this.expr(value)};`;
      }
      case 'Block':
        return `{${this.list(statement.body)}}`;
      case 'IfStmt': {
        const init = statement.init ? this.statement(statement.init) : '';
        const condition = this.expr(statement.cond);
        const then = this.list(statement.then.body);
        const otherwise = statement.otherwise ? ` else {${this.statement(statement.otherwise)}}` : '';
        return `${init}if (${condition}) {${then}}${otherwise}`;
      }
      case 'SwitchStmt':
        return this.switchStatement(statement);
    }
  }

  /**
   * `a, b := x, y` or `var a, b = x, y`. An entry `{ assigns: binding }` is a name := assigns to (it
   * already exists). A closure written once beside the script is not a value: declaring it does nothing.
   */
  private declaration(entries: (LocalBinding | { assigns: LocalBinding } | undefined)[], values: Expr[]): string {
    const targets: Target[] = [];
    const written: string[] = [];
    values.forEach((value, i) => {
      const entry = entries[i];
      const target = entry && 'assigns' in entry ? { binding: entry.assigns, declares: false } : { binding: entry, declares: true };
      const binding = target.binding;
      const literal = binding?.kind === 'local' && target.declares && onlyCalledByName(binding) ? binding.closure : null;
      if (literal) {
        const hoisted = this.closure(literal, binding?.name ?? 'the closure', true);
        if (hoisted === null) return; // written beside the script
        targets.push(target);
        written.push(hoisted);
        return;
      }
      targets.push(target);
      written.push(this.expr(value));
    });
    if (targets.length === 0) return '';
    return this.assign(targets, written);
  }

  private assign(targets: Target[], values: string[]): string {
    if (values.length === 1) return this.store(targets[0], values[0]);
    // Go evaluates every right-hand side before assigning any.
    const held = values.map((value) => {
      const name = this.temporary();
      return { name, code: `${name} = ${value};` };
    });
    return held.map((h) => h.code).join('') + targets.map((target, i) => this.store(target, held[i].name)).join('');
  }

  private store(target: Target, value: string): string {
    const binding = target.binding;
    if (!binding) return `${value};`; // _ = value
    if (binding.kind === 'variable') {
      const id = binding.id as number;
      this.assignedVariables.add(id);
      this.captureScriptLevel();
      return `${localName(id)} = ${value};`;
    }
    if (target.declares) this.frame.locals.push(localName(binding.id));
    else this.use(binding);
    return `${localName(binding.id)} = ${value};`;
  }

  private switchStatement(statement: SwitchStmt): string {
    const init = statement.init ? this.statement(statement.init) : '';
    const tag = statement.tag ? this.expr(statement.tag) : 'true';
    // JavaScript's switch is Go's: cases tried in order with ===, the first match wins, default only
    // when none does, and `break` leaves the innermost switch. Only falling into the next case differs.
    let clauses = '';
    for (const clause of statement.clauses) {
      const body = clause.body;
      const fallsThrough = body.length > 0 && body[body.length - 1].kind === 'FallthroughStmt';
      const labels = clause.values === null ? 'default:' : clause.values.map((v) => `case ${this.expr(v)}:`).join('');
      clauses += `${labels}{${this.list(body)}}${fallsThrough ? '' : 'break;'}`;
    }
    return `${init}switch (${tag}) {${clauses}}`;
  }

  // ---- expressions -------------------------------------------------------------------------------

  /** JavaScript for an expression, safe to use as an operand anywhere (compound forms are parenthesised). */
  private expr(expr: Expr): string {
    const constant = constantValue(expr);
    if (constant !== undefined) return this.literal(constant);
    switch (expr.kind) {
      case 'Ident':
        return this.ident(expr);
      case 'ParenExpr':
        return this.expr(expr.expr);
      case 'UnaryExpr': {
        const operand = this.expr(expr.operand);
        if (expr.op === '!') return `(!${operand})`;
        return `${this.value(negateInt64)}(${operand})`;
      }
      case 'FuncLit':
        return this.closure(expr, 'the closure', false) as string;
      case 'BinaryExpr':
        return this.binary(expr);
      case 'CallExpr':
        return this.call(expr);
      case 'ListLit': {
        const elements = expr.elements.map((e) => constantValue(e));
        // A list of constants is one frozen list per literal, made once ([]string{} is a list of its own, not nil).
        if (elements.every((e) => typeof e === 'string')) return this.value(Object.freeze(elements as string[]));
        return `[${expr.elements.map((e) => this.expr(e)).join(', ')}]`;
      }
    }
    throw new Error(`cannot compile ${expr.kind} (the checker should have rejected it)`);
  }

  private ident(expr: Ident): string {
    const binding = expr.binding;
    switch (binding?.kind) {
      case 'local':
        this.use(binding);
        return localName(binding.id);
      case 'variable': {
        const definition = binding.definition;
        const read =
          definition.attribute !== undefined
            ? `${this.value(text)}(env.visitor[${JSON.stringify(definition.attribute)}])`
            : `${this.value(definition.read)}(env)`;
        if (binding.id === null) return read;
        this.assignedVariables.add(binding.id);
        this.captureScriptLevel();
        const name = localName(binding.id);
        return `(${name} !== void 0 ? ${name} : (${name} = ${read}))`;
      }
      case 'nil':
        return this.literal(expr.nilType === 'list' ? NIL_LIST : null);
    }
    throw new Error(`cannot compile ${expr.name} (the checker should have rejected it)`);
  }

  private binary(expr: BinaryExpr): string {
    const rightConstant = constantValue(expr.right);
    if ((expr.op === '==' || expr.op === '!=') && typeof rightConstant === 'string' && rightConstant !== '') {
      // x == "US" on a visitor attribute: a value that is not a string never equals a non-empty string.
      const left = expr.left.kind === 'ParenExpr' ? expr.left.expr : expr.left;
      const attribute = left.kind === 'Ident' && left.binding?.kind === 'variable' && left.binding.id === null ? left.binding.definition.attribute : undefined;
      if (attribute !== undefined) return `(env.visitor[${JSON.stringify(attribute)}] ${expr.op}= ${this.literal(rightConstant)})`;
    }
    const left = this.expr(expr.left);
    const right = this.expr(expr.right);
    switch (expr.op) {
      case '&&':
      case '||':
        return `(${left} ${expr.op} ${right})`;
      case '==':
      case '!=':
        return `(${left} ${expr.op}= ${right})`;
    }
    if (expr.operandType === 'string') return `(${this.value(compareStrings)}(${left}, ${right}) ${expr.op} 0)`;
    return `(${left} ${expr.op} ${right})`;
  }

  private call(call: CallExpr): string {
    const target = call.target;
    switch (target?.kind) {
      case 'helper':
        return this.helperCall(call, target.helper);
      case 'value': {
        const binding = target.binding;
        if (!binding.closure || binding.reassigned) return this.valueCall(call, binding);
        // A closure never reassigned holds its literal from its declaration on: never nil where it can be called.
        const args = call.args.map((a) => this.expr(a));
        const hoisted = this.hoistedNames.get(binding.closure);
        if (hoisted !== undefined) return `${hoisted}(${['env', ...args].join(', ')})`;
        this.use(binding);
        return `${localName(binding.id)}(${args.join(', ')})`;
      }
      case 'literal':
        return `${this.closure(target.literal, 'the func literal', false) as string}(${call.args.map((a) => this.expr(a)).join(', ')})`;
      case 'conversion': {
        const value = this.expr(call.args[0]);
        if (target.to !== 'string' || call.args[0].kind === 'StringLit') return value;
        return `${this.value(toText)}(${value})`;
      }
    }
    throw new Error('cannot compile a call without a target (the checker should have rejected it)');
  }

  private helperCall(call: CallExpr, helper: HelperDefinition): string {
    const params = helper.params;
    const variadic = params[params.length - 1]?.variadic === true;
    const fixed = variadic ? params.length - 1 : params.length;
    // Each argument's JavaScript, and whether it is a constant (the others may have effects and be costly).
    const args: { code: string; constant: boolean }[] = [];
    for (let i = 0; i < fixed; i++) {
      const param = params[i];
      const arg = call.args[i];
      const code = this.expr(arg);
      const constant = constantValue(arg) !== undefined;
      const rule = param.rule;
      if (!rule || constant) {
        args.push({ code, constant });
        continue;
      }
      // A computed argument is checked against its parameter's rule (literals were, by the checker).
      const test = ARGUMENT_RULES[rule].test;
      const checked = (v: unknown): unknown => {
        if (!test(v)) requireArgument(rule, helper.name, param.name, v);
        return v;
      };
      args.push({ code: `${this.value(checked)}(${code})`, constant: false });
    }
    const rest = call.args.slice(fixed);
    // The variadic arguments one by one, unless they arrive as one list (spread).
    const elements = variadic && !call.spread ? rest.map((e) => ({ code: this.expr(e), constant: constantValue(e) !== undefined })) : null;
    const list = variadic && call.spread ? { code: this.expr(rest[0]), constant: constantValue(rest[0]) !== undefined } : null;

    if (helper.inline) {
      // Arguments are evaluated once, in order, into temporaries, so the inline form may repeat them.
      const bound: string[] = [];
      const bind = (arg: { code: string; constant: boolean }): string => {
        if (arg.constant) return arg.code;
        const name = this.temporary();
        bound.push(`${name} = ${arg.code}`);
        return name;
      };
      const fixedCodes = args.map(bind);
      const variadicCode = elements ? elements.map(bind) : list ? bind(list) : undefined;
      const inline = helper.inline('env', ...fixedCodes, ...(variadicCode !== undefined ? [variadicCode] : []));
      return bound.length === 0 ? `(${inline})` : `(${bound.join(', ')}, ${inline})`;
    }

    const codes = ['env', ...args.map((a) => a.code)];
    if (elements) {
      const values = rest.map((e) => constantValue(e));
      // A list of constants is one list per call site, made once.
      codes.push(values.every((v) => typeof v === 'string') ? this.value(Object.freeze(values as string[])) : `[${elements.map((e) => e.code).join(', ')}]`);
    } else if (list) codes.push(list.code);
    return `${this.value(helper.call)}(${codes.join(', ')})`;
  }

  /** A call through the func value a variable holds; calling nil fails, as it panics in Go (after the arguments). */
  private valueCall(call: CallExpr, binding: LocalBinding): string {
    const fn = this.temporary();
    const parts = [`${fn} = ${localName(binding.id)}`];
    this.use(binding);
    const args = call.args.map((a) => {
      const name = this.temporary();
      parts.push(`${name} = ${this.expr(a)}`);
      return name;
    });
    const message = `call of nil func ${binding.name}: it was declared without a value and not assigned one`;
    const fail = (): never => {
      throw new RuntimeFailure(message);
    };
    return `(${parts.join(', ')}, ${fn} === null ? ${this.value(fail)}() : ${fn}(${args.join(', ')}))`;
  }

  /**
   * A closure literal. One that uses no variable around it and is only ever called by its name
   * (`hoistable`) is written once, beside the script function, and null is returned: calls pass it env.
   * Any other is an arrow function where it is written, made anew each time that code runs.
   */
  private closure(literal: FuncLit, name: string, hoistable: boolean): string | null {
    const outer = this.frame;
    const frame: FunctionFrame = { literal, parent: outer, locals: [], captures: false };
    this.frame = frame;
    let body: string;
    try {
      body = this.list(literal.body.body);
    } finally {
      this.frame = outer;
    }
    const params = literal.params.map((p, i) => (p.binding ? localName(p.binding.id) : `_${i}`));
    // The checker guarantees every path of a closure returns; the throw only guards that promise.
    const message = `${name} ended without returning a value`;
    const noResult = (): never => {
      throw new RuntimeFailure(message);
    };
    const code = `{${declare(frame.locals)}${body}return ${this.value(noResult)}();}`;
    if (hoistable && !frame.captures) {
      const hoistedName = `h${this.hoisted.length}`;
      this.hoisted.push(`function ${hoistedName}(${['env', ...params].join(', ')}) ${code}`);
      this.hoistedNames.set(literal, hoistedName);
      return null;
    }
    return `((${params.join(', ')}) => ${code})`;
  }

  /** A local read or assigned here: every closure between here and the one declaring it captures it. */
  private use(binding: LocalBinding): void {
    for (let frame: FunctionFrame | null = this.frame; frame && frame.literal !== binding.owner; frame = frame.parent) frame.captures = true;
  }

  /** A script-level local (an assigned predeclared variable) is used here. */
  private captureScriptLevel(): void {
    for (let frame: FunctionFrame | null = this.frame; frame && frame.literal !== null; frame = frame.parent) frame.captures = true;
  }
}

/** The generated name of the script's variable numbered `id` (see LocalBinding.id). */
function localName(id: number): string {
  return `l${id}`;
}

function declare(names: string[]): string {
  return names.length === 0 ? '' : `let ${[...new Set(names)].join(', ')};`;
}

/** The value a variable declared without one starts with. */
function zeroValue(type: Type | undefined): RuntimeValue {
  switch (type) {
    case 'string':
      return '';
    case 'int':
      return 0;
    case 'bool':
      return false;
    case 'list':
      return NIL_LIST;
    default:
      return null; // a func: nil
  }
}

/** A closure declared with its literal that is only ever called by its name: it needs no value. */
function onlyCalledByName(binding: LocalBinding): boolean {
  return binding.closure !== null && !binding.reassigned && !binding.valueRead;
}
