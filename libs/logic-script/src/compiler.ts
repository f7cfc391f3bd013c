// Turns a checked tree into nested closures, once per script: evaluating a visitor then runs plain
// function calls with no tree walking, no type tests and no name lookups. Constants are folded,
// switches over literal cases become a Map lookup, and literal helper arguments (already checked by
// the checker) skip their run-time rule checks. Closures declared with their literal and never
// reassigned are called directly; other func values are called through the value a variable holds.
import type { BinaryExpr, CallExpr, Expr, FuncLit, Ident, LocalBinding, Script, Stmt, SwitchStmt, Type, VariableBinding } from './ast';
import { ARGUMENT_RULES, HelperDefinition, requireArgument } from './builtins';
import { constantValue } from './constants';
import { negateInt64 } from './go/ints';
import { compareStrings, runeToString } from './go/strings';
import { Box, FuncValue, NIL_LIST, RuntimeEnv, RuntimeFailure, RuntimeValue, UNSET } from './runtime';

type Getter = (env: RuntimeEnv) => RuntimeValue;
/** What a `break` statement returns through the statements around it, up to its switch. */
const BREAK: unique symbol = Symbol('break');
/** Runs statements; returns the value of a `return`, BREAK, or undefined when control falls through. */
type Exec = (env: RuntimeEnv) => RuntimeValue | typeof BREAK | undefined;

const fallThrough: Exec = () => undefined;
const leaveSwitch: Exec = () => BREAK;

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

/** Compiles a script that passed the checker. */
export function compileScript(script: Script): (env: RuntimeEnv) => RuntimeValue | undefined {
  const compiler = new Compiler();
  const body = compiler.list(script.body) as (env: RuntimeEnv) => RuntimeValue | undefined; // break never leaves a switch
  const assigned = [...compiler.assignedVariables];
  if (assigned.length === 0) return body;
  // Predeclared variables the script assigns live in slots, read from the visitor on first use.
  return (env) => {
    for (let i = 0; i < assigned.length; i++) env.slots[assigned[i]] = UNSET;
    return body(env);
  };
}

class Compiler {
  private readonly functions = new Map<FuncLit, Exec>();
  private readonly invokers = new Map<FuncLit, FuncValue>();
  /** Slots of the predeclared variables the script assigns. */
  readonly assignedVariables = new Set<number>();
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

  /** null: nothing to do at run time (a constant, or a closure only ever called by name). */
  private statement(statement: Stmt): Exec | null {
    switch (statement.kind) {
      case 'VarDecl': {
        const bindings = statement.names.map((n) => n.binding as LocalBinding | undefined);
        if (statement.values.length === 0) {
          return this.assign(
            bindings.map((binding) => ({ binding, declares: true })),
            bindings.map((binding) => this.constant(zeroValue(binding?.type))),
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
        return null;
      case 'Assign':
        return this.assign(
          statement.targets.map((t) => ({
            binding: t.kind === 'Ident' ? (t.binding as LocalBinding | VariableBinding | undefined) : undefined,
            declares: false,
          })),
          statement.values.map((v) => this.expr(v)),
        );
      case 'BreakStmt':
        return leaveSwitch;
      case 'FallthroughStmt':
        return null; // compiled by its switch
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

  /**
   * `a, b := x, y` or `var a, b = x, y`. An entry `{ assigns: binding }` is a name := assigns to (it
   * already exists). A closure only ever called by its name lives in the compiled code, not in the
   * frame: declaring it does nothing at run time.
   */
  private declaration(entries: (LocalBinding | { assigns: LocalBinding } | undefined)[], values: Expr[]): Exec | null {
    const kept = values
      .map((value, i) => {
        const entry = entries[i];
        if (entry && 'assigns' in entry) return { target: { binding: entry.assigns, declares: false }, value };
        return { target: { binding: entry, declares: true }, value };
      })
      .filter(({ target }) => !(target.declares && target.binding && onlyCalledByName(target.binding)));
    if (kept.length === 0) return null;
    return this.assign(
      kept.map((k) => k.target),
      kept.map((k) => this.expr(k.value)),
    );
  }

  /** How a value is stored: into a slot, into the box of a boxed variable, or into a new box when declared. */
  private store(target: { binding: LocalBinding | VariableBinding | undefined; declares: boolean }): ((env: RuntimeEnv, value: RuntimeValue) => void) | null {
    const binding = target.binding;
    if (!binding) return null;
    if (binding.kind === 'variable') {
      const slot = binding.slot as number;
      this.assignedVariables.add(slot);
      return (env, value) => {
        env.slots[slot] = value;
      };
    }
    const slot = binding.slot;
    if (!binding.boxed) {
      return (env, value) => {
        env.slots[slot] = value;
      };
    }
    if (target.declares) {
      return (env, value) => {
        env.slots[slot] = { v: value };
      };
    }
    return (env, value) => {
      (env.slots[slot] as Box).v = value;
    };
  }

  private assign(targets: { binding: LocalBinding | VariableBinding | undefined; declares: boolean }[], values: Getter[]): Exec {
    if (values.length === 1) {
      const value = values[0];
      const target = targets[0];
      const binding = target.binding;
      if (binding?.kind === 'local' && !binding.boxed) {
        const slot = binding.slot;
        return (env) => {
          env.slots[slot] = value(env);
          return undefined;
        };
      }
      const store = this.store(target);
      if (!store) {
        return (env) => {
          value(env);
          return undefined;
        };
      }
      return (env) => {
        store(env, value(env));
        return undefined;
      };
    }
    // Go evaluates every right-hand side before assigning any.
    const stores = targets.map((t) => this.store(t));
    return (env) => {
      const computed = values.map((v) => v(env));
      for (let i = 0; i < stores.length; i++) stores[i]?.(env, computed[i]);
      return undefined;
    };
  }

  private switchStatement(statement: SwitchStmt): Exec {
    const init = statement.init ? this.statement(statement.init) : null;
    // A case ending in fallthrough goes on with the next case's body (and what that one falls into).
    const bodies: Exec[] = [];
    for (let i = statement.clauses.length - 1; i >= 0; i--) {
      const body = statement.clauses[i].body;
      const fallsThrough = body.length > 0 && body[body.length - 1].kind === 'FallthroughStmt';
      const own = this.list(fallsThrough ? body.slice(0, -1) : body);
      const next = bodies[0];
      bodies.unshift(
        fallsThrough && next
          ? (env) => {
              const result = own(env);
              return result !== undefined ? result : next(env);
            }
          : own,
      );
    }
    const defaultIndex = statement.clauses.findIndex((c) => c.values === null);
    const defaultBody = defaultIndex >= 0 ? bodies[defaultIndex] : fallThrough;
    let decide: Exec;

    const tag = statement.tag ? this.expr(statement.tag) : null;
    const constantCases = statement.clauses.every((c) => c.values === null || c.values.every((v) => constantValue(v) !== undefined));
    if (tag && constantCases) {
      const table = new Map<RuntimeValue | typeof BREAK, Exec>();
      statement.clauses.forEach((clause, i) => {
        for (const value of clause.values ?? []) {
          const constant = constantValue(value) as RuntimeValue;
          if (!table.has(constant)) table.set(constant, bodies[i]);
        }
      });
      // switch country { ... } reads the visitor attribute inline, as == does.
      const tagExpr = statement.tag as Expr;
      const attribute =
        tagExpr.kind === 'Ident' && tagExpr.binding?.kind === 'variable' && tagExpr.binding.slot === null ? tagExpr.binding.definition.attribute : undefined;
      if (attribute !== undefined) {
        decide = (env) => {
          const value = env.visitor[attribute];
          return (table.get(typeof value === 'string' ? value : '') ?? defaultBody)(env);
        };
      } else decide = (env) => (table.get(tag(env)) ?? defaultBody)(env);
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
    if (statement.hasBreak) {
      const inner = decide;
      decide = (env) => {
        const result = inner(env);
        return result === BREAK ? undefined : result;
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
      case 'Ident':
        return this.ident(expr);
      case 'ParenExpr':
        return this.expr(expr.expr);
      case 'UnaryExpr': {
        const operand = this.expr(expr.operand);
        if (expr.op === '!') return (env) => !operand(env);
        return (env) => {
          const value = operand(env) as number | bigint;
          return typeof value === 'number' ? 0 - value : negateInt64(value);
        };
      }
      case 'FuncLit':
        return this.funcValue(expr);
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

  private ident(expr: Ident): Getter {
    const binding = expr.binding;
    switch (binding?.kind) {
      case 'local': {
        const slot = binding.slot;
        if (binding.boxed) return (env) => (env.slots[slot] as Box).v;
        return (env) => env.slots[slot] as RuntimeValue;
      }
      case 'variable': {
        const read = binding.definition.read;
        if (binding.slot === null) return read;
        const slot = binding.slot;
        this.assignedVariables.add(slot);
        return (env) => {
          const value = env.slots[slot];
          return value !== UNSET ? (value as RuntimeValue) : (env.slots[slot] = read(env));
        };
      }
      case 'nil':
        return this.constant(expr.nilType === 'list' ? NIL_LIST : null);
    }
    throw new Error(`cannot compile ${expr.name} (the checker should have rejected it)`);
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
    if (expr.kind === 'Ident' && expr.binding?.kind === 'local' && !expr.binding.boxed) {
      const slot = expr.binding.slot;
      return (env) => env.slots[slot] === constant;
    }
    const attribute = expr.kind === 'Ident' && expr.binding?.kind === 'variable' && expr.binding.slot === null ? expr.binding.definition.attribute : undefined;
    if (attribute !== undefined && constant !== '') return (env) => env.visitor[attribute] === constant;
    return (env) => value(env) === constant;
  }

  private call(call: CallExpr): Getter {
    const target = call.target;
    switch (target?.kind) {
      case 'helper':
        return this.helperCall(call, target.helper);
      case 'value':
        // A closure never reassigned is its literal wherever it can be called.
        if (target.binding.closure && !target.binding.reassigned) return this.directCall(call, target.binding.closure, target.binding.name);
        return this.valueCall(call, target.binding);
      case 'literal':
        return this.directCall(call, target.literal, 'the func literal');
      case 'conversion': {
        const value = this.expr(call.args[0]);
        if (target.to !== 'string' || call.args[0].kind === 'StringLit') return value;
        return (env) => {
          const v = value(env);
          return typeof v === 'string' ? v : runeToString(v as number | bigint);
        };
      }
    }
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

  /** A call of a closure known where it is compiled: its literal's body runs without a func value in between. */
  private directCall(call: CallExpr, literal: FuncLit, name: string): Getter {
    const args = call.args.map((a) => this.expr(a));
    if (literal.ownBoxes) {
      const invoke = this.invoker(literal, name);
      return (env) =>
        invoke(
          env,
          args.map((a) => a(env)),
        );
    }
    const body = this.function(literal);
    const slots = literal.params.map((p) => (p.binding ? p.binding.slot : -1));
    // The checker guarantees every path of a closure returns; `?? noResult` only guards that promise.
    const noResult = (): never => {
      throw new RuntimeFailure(`${name} ended without returning a value`);
    };
    if (args.length === 0) return (env) => (body(env) as RuntimeValue | undefined) ?? noResult();
    if (args.length === 1) {
      const [a] = args;
      const [slot] = slots;
      if (slot < 0) return (env) => (a(env), (body(env) as RuntimeValue | undefined) ?? noResult());
      return (env) => {
        env.slots[slot] = a(env);
        return (body(env) as RuntimeValue | undefined) ?? noResult();
      };
    }
    // All arguments are evaluated before any parameter is set: an argument may call the same closure.
    return (env) => {
      const values = args.map((a) => a(env));
      for (let i = 0; i < slots.length; i++) if (slots[i] >= 0) env.slots[slots[i]] = values[i];
      return (body(env) as RuntimeValue | undefined) ?? noResult();
    };
  }

  /** A call through the func value a variable holds; calling nil fails, as it panics in Go. */
  private valueCall(call: CallExpr, binding: LocalBinding): Getter {
    const read = this.ident({ kind: 'Ident', line: call.line, column: call.column, name: binding.name, binding });
    const args = call.args.map((a) => this.expr(a));
    return (env) => {
      const fn = read(env) as FuncValue | null;
      const values = args.map((a) => a(env));
      if (fn === null) throw new RuntimeFailure(`call of nil func ${binding.name}: it was declared without a value and not assigned one`);
      return fn(env, values);
    };
  }

  /**
   * A closure as a value. One made of a literal that keeps boxes (see closure-flow) holds on to the
   * boxes of the call that made it, and puts them back in place while it runs.
   */
  private funcValue(literal: FuncLit): Getter {
    const invoke = this.invoker(literal, 'the closure');
    const kept = literal.capturedBoxes;
    if (!kept) return this.constant(invoke);
    const slots = kept.map((b) => b.slot);
    return (env) => {
      const boxes = slots.map((slot) => env.slots[slot]);
      return (callEnv, args) => {
        const saved = slots.map((slot) => callEnv.slots[slot]);
        for (let i = 0; i < slots.length; i++) callEnv.slots[slots[i]] = boxes[i];
        try {
          return invoke(callEnv, args);
        } finally {
          for (let i = 0; i < slots.length; i++) callEnv.slots[slots[i]] = saved[i];
        }
      };
    };
  }

  /** Runs a literal's body with the given arguments; a closure with boxed variables makes new ones for the call. */
  private invoker(literal: FuncLit, name: string): FuncValue {
    let invoke = this.invokers.get(literal);
    if (invoke) return invoke;
    const body = this.function(literal);
    const params = literal.params.map((p) => p.binding);
    const own = (literal.ownBoxes ?? []).map((b) => b.slot);
    const noResult = (): never => {
      throw new RuntimeFailure(`${name} ended without returning a value`);
    };
    invoke = (env, args) => {
      // A call made while an earlier call's closure runs must not disturb that call's boxes.
      const saved = own.length > 0 ? own.map((slot) => env.slots[slot]) : null;
      for (let i = 0; i < params.length; i++) {
        const param = params[i];
        if (param) env.slots[param.slot] = param.boxed ? { v: args[i] } : args[i];
      }
      try {
        return (body(env) as RuntimeValue | undefined) ?? noResult();
      } finally {
        if (saved) for (let i = 0; i < own.length; i++) env.slots[own[i]] = saved[i];
      }
    };
    this.invokers.set(literal, invoke);
    return invoke;
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

/** A closure declared with its literal that is only ever called by its name: it needs no value in its slot. */
function onlyCalledByName(binding: LocalBinding): boolean {
  return binding.closure !== null && !binding.reassigned && !binding.valueRead;
}
