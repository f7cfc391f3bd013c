// Seeded random routing scripts for the differential check: statements and expressions of the
// language (declarations, constants, closures and func variables, if, switch with break and
// fallthrough, conversions, integer literals of every base, Unicode strings), and for about half of
// the programs one change that Go may reject (an unused variable, a type mismatch, an overflow, ...).
// Go is the oracle: a program is valid when Go compiles it, whatever the generator meant.

type ValueType = 'string' | 'int' | 'bool';

interface Local {
  name: string;
  type: ValueType | 'func';
  /** For func locals: parameter and result types. */
  params?: ValueType[];
  result?: ValueType;
  constant?: boolean;
  used: boolean;
  /** For func locals: the order of declaration; a closure only calls funcs declared before its own (no recursion). */
  order?: number;
}

/** mulberry32: small, fast and good enough to pick grammar productions. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

const STRING_VARIABLES = ['country', 'city', 'deviceType', 'browser', 'referrer', 'os', 'mainLanguage', 'trafficSourceID'];
const INT_VARIABLES = ['hour', 'minute', 'weekday', 'dayOfMonth', 'month', 'year', 'utcOffsetHours'];
const STRING_LITERALS = [
  '"US"',
  '"DE"',
  '"mobile"',
  '"Mobile"',
  '""',
  '"İzmir"',
  '"izmir"',
  '"ß"',
  '"SS"',
  '"ΑΣ"',
  '"ασ"',
  '"é"',
  '"\\xc3\\xa9"',
  '"\\u00e9"',
  '"Chrome"',
  '`raw`',
];
const INT_LITERALS = [
  '0',
  '1',
  '14',
  '2024',
  '0x0E',
  '0X7e8',
  '016',
  '0o17',
  '0b1110',
  '1_000',
  '0x_1F',
  '9007199254740991',
  '9007199254740993',
  '9223372036854775807',
  '-9223372036854775808',
  '-5',
];
const KEYS = ['us', 'de', 'mobile', 'night', 'k_1', 'izmir', 'default', 'other'];

export class ProgramGenerator {
  private lines: string[] = [];
  private scopes: Local[][] = [[]];
  private counter = 0;
  private indent = 0;
  /** Result type of the closure being generated (null: the script itself). */
  private result: ValueType | null = null;
  private switches = 0;
  /** While generating a closure for a func declared as number n: only funcs below n may be called. */
  private callableBelow = Infinity;

  constructor(private readonly random: Random) {}

  /** A script, and whether a change Go may reject was made to it. */
  program(): { code: string; mutated: boolean } {
    const mutated = this.random.chance(0.5);
    if (mutated) this.mutation();
    const count = 3 + this.random.int(6);
    for (let i = 0; i < count; i++) this.statement(2);
    this.closeScope();
    this.emit(this.random.chance(0.3) ? `return strings.ToLower(${this.stringExpr(1)})` : `return "${this.random.pick(KEYS)}"`);
    if (this.random.chance(0.1)) this.emit('return "unreachable"');
    return { code: this.lines.join('\n'), mutated };
  }

  private emit(line: string): void {
    this.lines.push('\t'.repeat(this.indent) + line);
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }

  private declare(local: Omit<Local, 'used'>): Local {
    const entry = { ...local, used: false };
    this.scopes[this.scopes.length - 1].push(entry);
    return entry;
  }

  private visible(type: Local['type']): Local[] {
    return this.scopes.flat().filter((l) => l.type === type);
  }

  /** Uses every local of the innermost scope that is not used yet (Go rejects unused variables). */
  private closeScope(): void {
    for (const local of this.scopes[this.scopes.length - 1]) {
      if (!local.used && !local.constant) {
        this.emit(`_ = ${local.name}`);
        local.used = true;
      }
    }
  }

  private block(header: string, body: () => void, footer = '}'): void {
    this.emit(header);
    this.indent++;
    this.scopes.push([]);
    body();
    this.closeScope();
    this.scopes.pop();
    this.indent--;
    if (footer) this.emit(footer);
  }

  private returnStatement(): string {
    if (this.result === null) return this.random.chance(0.15) ? `return strings.ToLower(${this.stringExpr(1)})` : `return "${this.random.pick(KEYS)}"`;
    return `return ${this.expr(this.result, 1)}`;
  }

  // ---- statements --------------------------------------------------------------------------------

  private statement(depth: number): void {
    const choices: (() => void)[] = [
      () => this.shortDeclaration(),
      () => this.varDeclaration(),
      () => this.constDeclaration(),
      () => this.assignment(),
      () => this.ifStatement(depth),
      () => this.ifStatement(depth),
      () => this.switchStatement(depth),
      () => this.closureDeclaration(depth),
      () => this.funcVariable(depth),
      () => this.shadowing(),
      () => this.outlivingClosure(),
    ];
    if (depth <= 0) choices.splice(4);
    this.random.pick(choices)();
  }

  private shortDeclaration(): void {
    const type = this.random.pick<ValueType>(['string', 'int', 'bool']);
    const name = this.fresh('v');
    this.emit(`${name} := ${this.expr(type, 2)}`);
    this.declare({ name, type });
  }

  private varDeclaration(): void {
    const type = this.random.pick<ValueType>(['string', 'int', 'bool']);
    const name = this.fresh('v');
    const form = this.random.int(3);
    if (form === 0) this.emit(`var ${name} ${type}`);
    else if (form === 1) this.emit(`var ${name} ${type} = ${this.expr(type, 2)}`);
    else this.emit(`var ${name} = ${this.expr(type, 2)}`);
    this.declare({ name, type });
  }

  private constDeclaration(): void {
    if (this.random.chance(0.3)) {
      const names = [this.fresh('c'), this.fresh('c'), this.fresh('c')];
      this.emit('const (');
      this.emit(`\t${names[0]} = iota`);
      this.emit(`\t${names[1]}`);
      this.emit(`\t${names[2]}`);
      this.emit(')');
      for (const name of names) this.declare({ name, type: 'int', constant: true });
      return;
    }
    const type = this.random.pick<ValueType>(['string', 'int', 'bool']);
    const name = this.fresh('c');
    const value =
      type === 'string'
        ? this.random.pick(STRING_LITERALS)
        : type === 'int'
          ? this.random.pick(INT_LITERALS)
          : this.random.pick(['true', '1 < 2', '"a" > "b"']);
    this.emit(this.random.chance(0.5) ? `const ${name} = ${value}` : `const ${name} ${type} = ${value}`);
    this.declare({ name, type, constant: true });
  }

  private assignment(): void {
    const targets = this.scopes.flat().filter((l) => !l.constant && l.type !== 'func');
    if (targets.length === 0 || this.random.chance(0.2)) {
      // A predeclared variable is a package variable in Go: assignable.
      const name = this.random.pick(STRING_VARIABLES);
      this.emit(`${name} = ${this.stringExpr(1)}`);
      return;
    }
    const target = this.random.pick(targets);
    this.emit(`${target.name} = ${this.expr(target.type as ValueType, 2)}`);
  }

  private ifStatement(depth: number): void {
    this.block(`if ${this.boolExpr(2)} {`, () => this.body(depth - 1), '');
    if (this.random.chance(0.4)) {
      this.block(`} else {`, () => this.body(depth - 1), '}');
    } else this.emit('}');
  }

  private body(depth: number): void {
    const count = this.random.int(3);
    for (let i = 0; i < count; i++) this.statement(depth);
    if (this.switches > 0 && this.random.chance(0.15)) {
      this.closeScope();
      this.emit('break');
      return;
    }
    if (this.random.chance(0.6)) {
      this.closeScope();
      this.emit(this.returnStatement());
      if (this.random.chance(0.1)) this.emit(this.returnStatement()); // unreachable: a warning
    }
  }

  private switchStatement(depth: number): void {
    const tagType = this.random.pick<ValueType | null>(['string', 'int', null]);
    const tag = tagType === null ? '' : ` ${this.expr(tagType, 1)}`;
    this.emit(`switch${tag} {`);
    this.switches++;
    const used = new Set<string>();
    const clauses = 1 + this.random.int(3);
    const withDefault = this.random.chance(0.5);
    for (let i = 0; i < clauses + (withDefault ? 1 : 0); i++) {
      const isDefault = withDefault && i === clauses;
      let header = 'default:';
      if (!isDefault) {
        const values: string[] = [];
        for (let j = 0; j < 1 + this.random.int(2); j++) {
          const value =
            tagType === 'string'
              ? this.random.pick(STRING_LITERALS)
              : tagType === 'int'
                ? this.random.pick(['1', '2', '14', '0x0E', '2024', '-5'])
                : this.boolExpr(1);
          if (tagType !== null && used.has(value)) continue;
          used.add(value);
          values.push(value);
        }
        if (values.length === 0) values.push(tagType === 'string' ? `"x${i}"` : tagType === 'int' ? String(100 + i) : 'false');
        header = `case ${values.join(', ')}:`;
      }
      const last = i === clauses + (withDefault ? 1 : 0) - 1;
      this.block(
        header,
        () => {
          this.body(depth - 1);
          if (!last && this.random.chance(0.15)) this.emit('fallthrough');
        },
        '',
      );
    }
    this.switches--;
    this.emit('}');
  }

  private closureDeclaration(depth: number): void {
    const name = this.fresh('f');
    const params = Array.from({ length: this.random.int(3) }, () => this.random.pick<ValueType>(['string', 'int', 'bool']));
    const result = this.random.pick<ValueType>(['bool', 'bool', 'int', 'string']);
    const order = this.counter;
    this.emit(`${name} := ${this.closureLiteral(params, result, depth, order)}`);
    this.declare({ name, type: 'func', params, result, order });
  }

  /** `var f func(...) T`, then a closure (or nil) assigned to it, maybe twice. */
  private funcVariable(depth: number): void {
    const name = this.fresh('g');
    const params = Array.from({ length: this.random.int(2) }, () => this.random.pick<ValueType>(['string', 'int']));
    const result = this.random.pick<ValueType>(['bool', 'int']);
    this.emit(`var ${name} func(${params.join(', ')}) ${result}`);
    const order = this.counter;
    const local = this.declare({ name, type: 'func', params, result, order });
    if (this.random.chance(0.9)) this.emit(`${name} = ${this.closureLiteral(params, result, depth, order)}`);
    if (this.random.chance(0.2)) this.emit(`${name} = ${this.closureLiteral(params, result, depth, order)}`);
    local.used = false;
  }

  private closureLiteral(params: ValueType[], result: ValueType, depth: number, order: number): string {
    const names = params.map(() => this.fresh('p'));
    const saved = { lines: this.lines, indent: this.indent, result: this.result, switches: this.switches, callableBelow: this.callableBelow };
    this.callableBelow = Math.min(this.callableBelow, order);
    this.lines = [];
    this.indent = saved.indent + 1;
    this.result = result;
    this.switches = 0;
    this.scopes.push(names.map((n, i) => ({ name: n, type: params[i], used: true })));
    const count = this.random.int(3);
    for (let i = 0; i < count; i++) this.statement(Math.min(depth - 1, 1));
    this.closeScope();
    this.scopes.pop();
    this.emit(`return ${this.expr(result, 2)}`);
    const body = this.lines;
    this.lines = saved.lines;
    this.indent = saved.indent;
    this.result = saved.result;
    this.switches = saved.switches;
    this.callableBelow = saved.callableBelow;
    const signature = `func(${names.map((n, i) => `${n} ${params[i]}`).join(', ')}) ${result}`;
    return `${signature} {\n${body.join('\n')}\n${'\t'.repeat(this.indent)}}`;
  }

  /**
   * A closure stored outside the closure that makes it, using that closure's parameter: each call
   * makes its own parameter, which the stored closure keeps (Go's closures capture variables).
   */
  private outlivingClosure(): void {
    const [g, m, h, v, p] = [this.fresh('g'), this.fresh('m'), this.fresh('h'), this.fresh('v'), this.fresh('p')];
    const [first, second] = [this.intExpr(1), this.intExpr(1)];
    this.emit(`var ${g} func() int`);
    this.emit(`${m} := func(${p} int) bool {`);
    this.emit(`\t${g} = func() int {`);
    this.emit(`\t\treturn ${p}`);
    this.emit('\t}');
    this.emit(`\treturn ${this.random.chance(0.5) ? 'true' : `${p} > 0`}`);
    this.emit('}');
    this.emit(`_ = ${m}(${first})`);
    this.emit(`${h} := ${g}`);
    this.emit(`_ = ${m}(${second})`);
    this.emit(`${v} := ${h}()`);
    this.emit(`if ${v} != ${g}() {`);
    this.emit('\treturn "kept"');
    this.emit('}');
    this.declare({ name: g, type: 'func', params: [], result: 'int', order: this.counter }).used = true;
    this.declare({ name: h, type: 'func', params: [], result: 'int', order: this.counter }).used = true;
    this.declare({ name: v, type: 'int' }).used = true;
  }

  /** country := strings.ToLower(country): a local shadowing a predeclared variable. */
  private shadowing(): void {
    if (this.scopes.flat().some((l) => STRING_VARIABLES.includes(l.name))) return;
    const name = this.random.pick(STRING_VARIABLES);
    this.emit(`${name} := strings.${this.random.pick(['ToLower', 'ToUpper'])}(${name})`);
    this.declare({ name, type: 'string' });
  }

  // ---- expressions -------------------------------------------------------------------------------

  private expr(type: ValueType, depth: number): string {
    if (type === 'string') return this.stringExpr(depth);
    if (type === 'int') return this.intExpr(depth);
    return this.boolExpr(depth);
  }

  private use(type: Local['type']): Local | null {
    const candidates = this.visible(type);
    if (candidates.length === 0) return null;
    const local = this.random.pick(candidates);
    local.used = true;
    return local;
  }

  private stringExpr(depth: number): string {
    const options: (() => string)[] = [
      () => this.random.pick(STRING_LITERALS),
      () => this.random.pick(STRING_VARIABLES),
      () => this.use('string')?.name ?? '"none"',
    ];
    if (depth > 0) {
      options.push(
        () => `strings.${this.random.pick(['ToLower', 'ToUpper'])}(${this.stringExpr(depth - 1)})`,
        () => `trackingField(${this.random.pick(['"campaign"', '"missing"'])})`,
        () => `string(${this.stringExpr(depth - 1)})`,
        () => `string(${this.random.pick(['65', '0x1F600', '-1', '0xD800', 'hour'])})`,
        () => `localDay(${this.random.pick(['0', '3', '-5', 'utcOffsetHours'])})`,
        () => this.call('string', depth),
      );
    }
    return this.random.pick(options)();
  }

  private intExpr(depth: number): string {
    const options: (() => string)[] = [() => this.random.pick(INT_LITERALS), () => this.random.pick(INT_VARIABLES), () => this.use('int')?.name ?? '7'];
    if (depth > 0) {
      options.push(
        () => `len(${this.stringExpr(depth - 1)})`,
        () => `int(${this.intExpr(depth - 1)})`,
        () => `-${this.random.pick([...INT_VARIABLES, this.use('int')?.name ?? '3'])}`,
        () => this.call('int', depth),
      );
    }
    return this.random.pick(options)();
  }

  private boolExpr(depth: number): string {
    const options: (() => string)[] = [
      () => this.random.pick(['true', 'false']),
      () => `${this.stringExpr(0)} ${this.random.pick(['==', '!=', '<', '>='])} ${this.stringExpr(0)}`,
      () => `${this.intExpr(0)} ${this.random.pick(['==', '!=', '<', '<=', '>', '>='])} ${this.intExpr(0)}`,
      () => this.use('bool')?.name ?? 'true',
    ];
    if (depth > 0) {
      options.push(
        () => `${this.stringExpr(depth - 1)} ${this.random.pick(['==', '!=', '<'])} ${this.stringExpr(depth - 1)}`,
        () => `${this.intExpr(depth - 1)} ${this.random.pick(['==', '<', '>='])} ${this.intExpr(depth - 1)}`,
        () => `!(${this.boolExpr(depth - 1)})`,
        () => `${this.boolExpr(depth - 1)} ${this.random.pick(['&&', '||'])} ${this.boolExpr(depth - 1)}`,
        () => `oneOf(${this.stringExpr(depth - 1)}, ${this.random.pick(STRING_LITERALS)}, ${this.random.pick(STRING_LITERALS)})`,
        () => `strings.${this.random.pick(['Contains', 'HasPrefix', 'HasSuffix'])}(${this.stringExpr(depth - 1)}, ${this.random.pick(STRING_LITERALS)})`,
        () => `hasVisitorTag(${this.random.pick(['"t1"', '"vip"'])})`,
        () =>
          `timeInRange(${this.random.pick(['900', '2200', '0700', '1430'])}, ${this.random.pick(['1700', '600', '1431'])}, ${this.random.pick(['0', '3', 'utcOffsetHours'])})`,
        () => `timeAtOrAfter(${this.random.pick(['1400', '0700', 'hour'])}, ${this.random.pick(['0', '-5'])})`,
        () => `func(x int) bool { return x > ${this.random.pick(['3', '0x0E', '2023'])} }(${this.intExpr(depth - 1)})`,
        () => this.call('bool', depth),
        () => {
          const f = this.use('func');
          return f ? `${f.name} ${this.random.pick(['==', '!='])} nil` : 'true';
        },
      );
    }
    return this.random.pick(options)();
  }

  /** A call of a closure or func variable in scope returning `type` (calling a nil one panics, in both). */
  private call(type: ValueType, depth: number): string {
    const candidates = this.visible('func').filter((f) => f.result === type && (f.order ?? 0) < this.callableBelow);
    if (candidates.length === 0) return type === 'string' ? '"nofunc"' : type === 'int' ? '0' : 'false';
    const f = this.random.pick(candidates);
    f.used = true;
    return `${f.name}(${(f.params ?? []).map((p) => this.expr(p, depth - 1)).join(', ')})`;
  }

  // ---- changes Go may reject ---------------------------------------------------------------------

  private mutation(): void {
    const mutations = [
      'unused := 1',
      'if country == 5 {\n\treturn "x"\n}',
      'if undefinedName == "a" {\n\treturn "x"\n}',
      'if year < 9223372036854775808 {\n\treturn "x"\n}',
      'if hour == 08 {\n\treturn "x"\n}',
      'if hour == 0b12 {\n\treturn "x"\n}',
      'a := 1\na := 2\n_ = a',
      'const k = 1\nk = 2',
      'if true {\n\tbreak\n}',
      'switch country {\ncase "US":\n\tfallthrough\n}',
      'if country == nil {\n\treturn "x"\n}',
      'if hour() == 1 {\n\treturn "x"\n}',
      'x := 1\nx := 2\n_ = x',
      'const k = country\n_ = k',
      'if strings.Contains(country) {\n\treturn "x"\n}',
      'string := "s"\nvar y string = string\n_ = y',
      'f := func() bool { return true }\nif f == f {\n\treturn "x"\n}',
      'var f func() bool\nf = func() int { return 1 }\n_ = f',
      'if int("5") == 5 {\n\treturn "x"\n}',
      'n := nil\n_ = n',
      'return "a"\nx := 1\n_ = x',
      'if len(5) == 1 {\n\treturn "x"\n}',
      'const big int = 9223372036854775808',
      'const big = 9223372036854775808\nif big > 1 {\n\treturn "big"\n}',
      'var l []string\nif l == nil && len(l) == 0 {\n\treturn "nil_list"\n}',
      'country = "DE"',
      'v := string(9223372036854775808)\n_ = v',
      'if bool(1) {\n\treturn "x"\n}',
    ];
    for (const line of this.random.pick(mutations).split('\n')) this.emit(line);
  }
}
