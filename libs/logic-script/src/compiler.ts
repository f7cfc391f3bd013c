// Turns a checked tree into nested closures, once per script: evaluating a visitor then runs plain
// function calls with no tree walking, no type tests and no name lookups. Constants are folded,
// switches over literal cases become a Map lookup, and literal helper arguments (already checked by
// the checker) skip their run-time rule checks.
import type { BinaryExpr, CallExpr, Expr, FuncLit, LocalBinding, Script, Stmt, SwitchStmt } from './ast';
import { ARGUMENT_RULES, HelperDefinition, requireArgument, ValueType } from './builtins';
import { constantValue } from './checker';
import { RuntimeEnv, RuntimeFailure, RuntimeValue } from './runtime';

type Getter = (env: RuntimeEnv) => RuntimeValue;
/** Runs statements; returns the value of a `return`, or undefined when control falls through. */
type Exec = (env: RuntimeEnv) => RuntimeValue | undefined;

const fallThrough: Exec = () => undefined;

const ZERO_VALUES: Readonly<Record<ValueType, RuntimeValue>> = { string: '', int: 0, bool: false, list: Object.freeze([]) as readonly string[] };

/** Compiles a script that passed the checker. */
export function compileScript(script: Script): Exec {
  return new Compiler().list(script.body);
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Go orders strings by their UTF-8 bytes. Without surrogates, UTF-16 code-unit order is the same
 * order; with them (code points above U+FFFF, or lone halves that UTF-8 turns into U+FFFD) the
 * bytes are compared.
 */
export function compareStrings(a: string, b: string): number {
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

class Compiler {
  private readonly functions = new Map<FuncLit, Exec>();
  /** Getters known to return a constant, so callers can use the value instead of calling them. */
  private readonly constants = new WeakMap<Getter | Exec, RuntimeValue>();
  /** `if condition { return constant }` statements, which a list runs as one loop. */
  private readonly guards = new WeakMap<Exec, { condition: Getter; key: RuntimeValue }>();

  private constant(value: RuntimeValue): Getter {
    const getter: Getter = () => value;
    this.constants.set(getter, value);
    return getter;
  }

  // ---- statements --------------------------------------------------------------------------------

  list(statements: Stmt[]): Exec {
    const compiled = this.fuseGuards(statements.map((s) => this.statement(s)).filter((s): s is Exec => s !== null));
    switch (compiled.length) {
      case 0:
        return fallThrough;
      case 1:
        return compiled[0];
      case 2: {
        const [first, second] = compiled;
        return (env) => {
          const result = first(env);
          return result !== undefined ? result : second(env);
        };
      }
      default:
        return (env) => {
          for (let i = 0; i < compiled.length; i++) {
            const result = compiled[i](env);
            if (result !== undefined) return result;
          }
          return undefined;
        };
    }
  }

  /**
   * Runs of `if c { return "key" }` (the bulk of most scripts), possibly followed by a constant
   * return, become one closure that loops over the conditions: one call per statement saved.
   */
  private fuseGuards(compiled: Exec[]): Exec[] {
    const fused: Exec[] = [];
    for (let i = 0; i < compiled.length;) {
      const conditions: Getter[] = [];
      const keys: RuntimeValue[] = [];
      const start = i;
      for (let guard = this.guards.get(compiled[i]); guard; guard = this.guards.get(compiled[++i])) {
        conditions.push(guard.condition);
        keys.push(guard.key);
      }
      if (conditions.length < 2) {
        fused.push(compiled[start]);
        i = start + 1;
        continue;
      }
      const last = i < compiled.length ? this.constants.get(compiled[i]) : undefined;
      if (last !== undefined) i++;
      fused.push((env) => {
        for (let j = 0; j < conditions.length; j++) if (conditions[j](env)) return keys[j];
        return last;
      });
    }
    return fused;
  }

  /** null: nothing to do at run time (a closure declaration). */
  private statement(statement: Stmt): Exec | null {
    switch (statement.kind) {
      case 'VarDecl': {
        const type = statement.type?.name;
        if (statement.values.length === 0) {
          const zero = ZERO_VALUES[type as ValueType];
          return this.assign(
            statement.names.map((n) => n.binding as LocalBinding | undefined),
            statement.names.map(() => () => zero),
          );
        }
        return this.declaration(
          statement.names.map((n) => n.binding as LocalBinding | undefined),
          statement.values,
        );
      }
      case 'ShortVarDecl':
        return this.declaration(
          statement.names.map((n) => n.binding as LocalBinding | undefined),
          statement.values,
        );
      case 'Assign':
        return this.assign(
          statement.targets.map((t) => (t.kind === 'Ident' && t.binding?.kind === 'local' ? t.binding : undefined)),
          statement.values.map((v) => this.expr(v)),
        );
      case 'ExprStmt': {
        const run = this.expr(statement.expr);
        return (env) => {
          run(env);
          return undefined;
        };
      }
      case 'ReturnStmt':
        return this.expr(statement.values[0]);
      case 'Block':
        return this.list(statement.body);
      case 'IfStmt': {
        const init = statement.init ? this.statement(statement.init) : null;
        const condition = this.expr(statement.cond);
        const then = this.list(statement.then.body);
        const otherwise = statement.otherwise ? (this.statement(statement.otherwise) ?? fallThrough) : fallThrough;
        // `if c { return "key" }` is the commonest statement: return the key without calling a closure for it.
        const key = this.constants.get(then);
        let decide: Exec;
        if (key !== undefined && otherwise === fallThrough) {
          decide = (env) => (condition(env) ? key : undefined);
          if (!init) this.guards.set(decide, { condition, key });
        } else if (key !== undefined) decide = (env) => (condition(env) ? key : otherwise(env));
        else if (otherwise === fallThrough) decide = (env) => (condition(env) ? then(env) : undefined);
        else decide = (env) => (condition(env) ? then(env) : otherwise(env));
        if (!init) return decide;
        return (env) => {
          init(env);
          return decide(env);
        };
      }
      case 'SwitchStmt':
        return this.switchStatement(statement);
    }
  }

  private declaration(bindings: (LocalBinding | undefined)[], values: Expr[]): Exec | null {
    // Closures live in the compiled code, not in the frame: declaring one does nothing at run time.
    const kept = values.map((value, i) => ({ binding: bindings[i], value })).filter(({ value }) => value.kind !== 'FuncLit');
    if (kept.length === 0) return null;
    return this.assign(
      kept.map((k) => k.binding),
      kept.map((k) => this.expr(k.value)),
    );
  }

  private assign(targets: (LocalBinding | undefined)[], values: Getter[]): Exec {
    if (values.length === 1) {
      const value = values[0];
      const target = targets[0];
      if (!target) {
        return (env) => {
          value(env);
          return undefined;
        };
      }
      const slot = target.slot;
      return (env) => {
        env.slots[slot] = value(env);
        return undefined;
      };
    }
    // Go evaluates every right-hand side before assigning any.
    const slots = targets.map((t) => (t ? t.slot : -1));
    return (env) => {
      const computed = values.map((v) => v(env));
      for (let i = 0; i < slots.length; i++) if (slots[i] >= 0) env.slots[slots[i]] = computed[i];
      return undefined;
    };
  }

  private switchStatement(statement: SwitchStmt): Exec {
    const init = statement.init ? this.statement(statement.init) : null;
    const bodies = statement.clauses.map((c) => this.list(c.body));
    const defaultIndex = statement.clauses.findIndex((c) => c.values === null);
    const defaultBody = defaultIndex >= 0 ? bodies[defaultIndex] : fallThrough;
    let decide: Exec;

    const tag = statement.tag ? this.expr(statement.tag) : null;
    const constantCases = statement.clauses.every((c) => c.values === null || c.values.every((v) => constantValue(v) !== undefined));
    if (tag && constantCases) {
      const table = new Map<RuntimeValue, Exec>();
      statement.clauses.forEach((clause, i) => {
        for (const value of clause.values ?? []) {
          const constant = constantValue(value) as RuntimeValue;
          if (!table.has(constant)) table.set(constant, bodies[i]);
        }
      });
      decide = (env) => (table.get(tag(env)) ?? defaultBody)(env);
    } else {
      const clauses = statement.clauses
        .map((clause, i) => ({ matchers: (clause.values ?? []).map((v) => this.expr(v)), body: bodies[i] }))
        .filter((c) => c.matchers.length > 0);
      decide = (env) => {
        const subject = tag ? tag(env) : true;
        for (const clause of clauses) {
          for (const matcher of clause.matchers) if (matcher(env) === subject) return clause.body(env);
        }
        return defaultBody(env);
      };
    }
    if (!init) return decide;
    return (env) => {
      init(env);
      return decide(env);
    };
  }

  // ---- expressions -------------------------------------------------------------------------------

  private expr(expr: Expr): Getter {
    const constant = constantValue(expr);
    if (constant !== undefined) return this.constant(constant);
    switch (expr.kind) {
      case 'Ident': {
        const binding = expr.binding;
        if (binding?.kind === 'local') {
          const slot = binding.slot;
          return (env) => env.slots[slot];
        }
        if (binding?.kind === 'variable') return binding.definition.read;
        break;
      }
      case 'ParenExpr':
        return this.expr(expr.expr);
      case 'UnaryExpr': {
        const operand = this.expr(expr.operand);
        return expr.op === '!' ? (env) => !operand(env) : (env) => -(operand(env) as number);
      }
      case 'BinaryExpr':
        return this.binary(expr);
      case 'CallExpr':
        return this.call(expr);
      case 'ListLit': {
        const elements = expr.elements.map((e) => constantValue(e));
        if (elements.every((e) => typeof e === 'string')) return this.constant(Object.freeze(elements as string[]));
        const getters = expr.elements.map((e) => this.expr(e));
        return (env) => getters.map((g) => g(env) as string);
      }
    }
    throw new Error(`cannot compile ${expr.kind} (the checker should have rejected it)`);
  }

  private binary(expr: BinaryExpr): Getter {
    const left = this.expr(expr.left);
    const right = this.expr(expr.right);
    const rightConstant = constantValue(expr.right);
    switch (expr.op) {
      case '&&':
        return (env) => (left(env) as boolean) && (right(env) as boolean);
      case '||':
        return (env) => (left(env) as boolean) || (right(env) as boolean);
      case '==':
      case '!=': {
        const equal = rightConstant !== undefined ? this.equalsConstant(expr.left, left, rightConstant) : (env: RuntimeEnv) => left(env) === right(env);
        if (expr.op === '==') return equal;
        return (env) => !equal(env);
      }
    }
    if (expr.operandType === 'string') {
      const compare = (env: RuntimeEnv): number => compareStrings(left(env) as string, right(env) as string);
      switch (expr.op) {
        case '<':
          return (env) => compare(env) < 0;
        case '<=':
          return (env) => compare(env) <= 0;
        case '>':
          return (env) => compare(env) > 0;
        case '>=':
          return (env) => compare(env) >= 0;
      }
    }
    switch (expr.op) {
      case '<':
        return (env) => (left(env) as number) < (right(env) as number);
      case '<=':
        return (env) => (left(env) as number) <= (right(env) as number);
      case '>':
        return (env) => (left(env) as number) > (right(env) as number);
      default:
        return (env) => (left(env) as number) >= (right(env) as number);
    }
  }

  /** `x == constant`, reading a local or a visitor attribute inline (the commonest condition). */
  private equalsConstant(expr: Expr, value: Getter, constant: RuntimeValue): Getter {
    if (expr.kind === 'Ident' && expr.binding?.kind === 'local') {
      const slot = expr.binding.slot;
      return (env) => env.slots[slot] === constant;
    }
    const attribute = expr.kind === 'Ident' && expr.binding?.kind === 'variable' ? expr.binding.definition.attribute : undefined;
    if (attribute !== undefined && constant !== '') return (env) => env.visitor[attribute] === constant;
    return (env) => value(env) === constant;
  }

  private call(call: CallExpr): Getter {
    const target = call.target;
    if (target?.kind === 'helper') return this.helperCall(call, target.helper);
    if (target?.kind === 'closure') return this.closureCall(call, target.binding);
    throw new Error('cannot compile a call without a target (the checker should have rejected it)');
  }

  private helperCall(call: CallExpr, helper: HelperDefinition): Getter {
    const params = helper.params;
    const variadic = params[params.length - 1]?.variadic === true;
    const fixed = variadic ? params.length - 1 : params.length;
    const args: Getter[] = [];
    for (let i = 0; i < fixed; i++) {
      const param = params[i];
      const arg = call.args[i];
      const value = this.expr(arg);
      const rule = param.rule;
      if (!rule || constantValue(arg) !== undefined) {
        args.push(value);
        continue;
      }
      const test = ARGUMENT_RULES[rule].test;
      args.push((env) => {
        const v = value(env);
        if (!test(v)) requireArgument(rule, helper.name, param.name, v);
        return v;
      });
    }
    if (variadic) {
      const rest = call.args.slice(fixed);
      if (call.spread) args.push(this.expr(rest[0]));
      else {
        const listLiteral: Expr = { kind: 'ListLit', line: call.line, column: call.column, elements: rest };
        args.push(this.expr(listLiteral));
      }
    }
    const impl = helper.call;
    // Constant arguments are passed as values; the usual shapes are "all constant" (trackingField("x"),
    // timeInRange(900, 1700, -5)) and "first computed, rest constant" (oneOf(country, "US", "CA")).
    const values = args.map((a) => this.constants.get(a));
    const restConstant = values.slice(1).every((v) => v !== undefined);
    if (restConstant && values.length <= 3) {
      const [first, b, c] = values;
      const a = args[0];
      if (first !== undefined) {
        if (values.length === 1) return (env) => impl(env, first);
        if (values.length === 2) return (env) => impl(env, first, b);
        return (env) => impl(env, first, b, c);
      }
      if (values.length === 1) return (env) => impl(env, a(env));
      if (values.length === 2) return (env) => impl(env, a(env), b);
      return (env) => impl(env, a(env), b, c);
    }
    switch (args.length) {
      case 2: {
        const [a, b] = args;
        return (env) => impl(env, a(env), b(env));
      }
      case 3: {
        const [a, b, c] = args;
        return (env) => impl(env, a(env), b(env), c(env));
      }
      default:
        return (env) => impl(env, ...args.map((g) => g(env)));
    }
  }

  private closureCall(call: CallExpr, binding: LocalBinding): Getter {
    const literal = binding.closure as FuncLit;
    const body = this.function(literal);
    const slots = literal.params.map((p) => (p.binding ? p.binding.slot : -1));
    const args = call.args.map((a) => this.expr(a));
    // The checker guarantees every path of a closure returns; `?? noResult` only guards that promise.
    const noResult = (): never => {
      throw new RuntimeFailure(`${binding.name} ended without returning a value`);
    };
    if (args.length === 0) return (env) => body(env) ?? noResult();
    if (args.length === 1) {
      const [a] = args;
      const [slot] = slots;
      if (slot < 0) return (env) => (a(env), body(env) ?? noResult());
      return (env) => {
        env.slots[slot] = a(env);
        return body(env) ?? noResult();
      };
    }
    // All arguments are evaluated before any parameter is set: an argument may call the same closure.
    return (env) => {
      const values = args.map((a) => a(env));
      for (let i = 0; i < slots.length; i++) if (slots[i] >= 0) env.slots[slots[i]] = values[i];
      return body(env) ?? noResult();
    };
  }

  private function(literal: FuncLit): Exec {
    let compiled = this.functions.get(literal);
    if (!compiled) {
      compiled = this.list(literal.body.body);
      this.functions.set(literal, compiled);
    }
    return compiled;
  }
}
