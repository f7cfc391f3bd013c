// Recursive-descent parser for the statement subset of Go that routing scripts use. It follows Go's
// grammar (so valid Go parses the way Go would) and recognises the rest of Go well enough to reject it
// by name. On a syntax error it skips to the end of the statement and goes on, so one pass reports
// many errors; `recovered` then tells the checker that flow analysis would see a partial script.
import type {
  Assign,
  ConstDecl,
  BadExpr,
  BinaryOperator,
  Block,
  CaseClause,
  Expr,
  ExprStmt,
  FuncLit,
  Ident,
  IfStmt,
  Located,
  Parameter,
  ReturnStmt,
  Script,
  ShortVarDecl,
  SimpleStmt,
  Stmt,
  SwitchStmt,
  TypeRef,
  VarDecl,
} from './ast';
import { DiagnosticBag, DiagnosticCode } from './diagnostics';
import { forbiddenMessage } from './forbidden';
import { Token } from './lexer';

/** Deeper nesting than this is never a routing script, and bounding it keeps every later pass's recursion safe. */
export const MAX_NESTING = 100;

export interface ParseResult {
  script: Script;
  /** Some tokens were skipped after a syntax error. */
  recovered: boolean;
}

export function parse(tokens: Token[], diagnostics: DiagnosticBag): ParseResult {
  const parser = new Parser(tokens, diagnostics);
  const script = parser.parseScript();
  return { script, recovered: parser.recovered };
}

/** Unwinds to the nearest statement list, which skips to the next statement. */
class ParseAbort {}

const PRECEDENCE: Readonly<Record<string, number>> = {
  '||': 1,
  '&&': 2,
  '==': 3,
  '!=': 3,
  '<': 3,
  '<=': 3,
  '>': 3,
  '>=': 3,
  '+': 4,
  '-': 4,
  '|': 4,
  '^': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  '<<': 5,
  '>>': 5,
  '&': 5,
  '&^': 5,
};
const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);
const ASSIGN_OPERATORS = new Set(['+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=', '&^=']);
const SUPPORTED_TYPE_NAMES = new Set(['string', 'int', 'bool']);

type ListContext = 'script' | 'block' | 'clause';

class Parser {
  private index = 0;
  private token: Token;
  private depth = 0;
  /** Brackets ( [ { consumed and not yet closed; recovery skips back out to a statement's own level. */
  private open = 0;
  /** After a syntax error, further syntax errors are suppressed until a statement parses cleanly (they are mostly echoes). */
  private quiet = false;
  recovered = false;

  constructor(
    private readonly tokens: Token[],
    private readonly diagnostics: DiagnosticBag,
  ) {
    this.token = tokens[0];
  }

  parseScript(): Script {
    const body = this.parseStatementList('script');
    // "Missing return" points at the last token of the script (Go points at a function's closing brace).
    let last: Token | undefined;
    for (let i = this.tokens.length - 1; i >= 0 && !last; i--) {
      if (this.tokens[i].kind !== 'semi' && this.tokens[i].kind !== 'eof') last = this.tokens[i];
    }
    return { body, end: last ? { line: last.line, column: last.column } : { line: 1, column: 1 } };
  }

  // ---- token helpers -----------------------------------------------------------------------------

  private next(): void {
    const { kind, text } = this.token;
    if (kind === 'op') {
      if (text === '(' || text === '[' || text === '{') this.open++;
      else if (text === ')' || text === ']' || text === '}') this.open--;
    }
    if (this.index < this.tokens.length - 1) this.index++;
    this.token = this.tokens[this.index];
  }

  private peek(): Token {
    return this.tokens[Math.min(this.index + 1, this.tokens.length - 1)];
  }

  // Methods rather than inline tests: TypeScript would otherwise narrow this.token across next() calls.
  private isSemi(): boolean {
    return this.token.kind === 'semi';
  }

  private isEof(): boolean {
    return this.token.kind === 'eof';
  }

  private isOp(text: string): boolean {
    return this.token.kind === 'op' && this.token.text === text;
  }

  private isKeyword(text: string): boolean {
    return this.token.kind === 'keyword' && this.token.text === text;
  }

  /** The current position (the token itself: it has line and column, and sharing it allocates nothing). */
  private at(): Located {
    return this.token;
  }

  private report(code: DiagnosticCode, at: Located, message: string): void {
    if (this.quiet && code === 'SYNTAX_ERROR') return;
    this.diagnostics.error(code, at, message);
  }

  private fail(code: DiagnosticCode, at: Located, message: string): never {
    this.report(code, at, message);
    throw new ParseAbort();
  }

  private describe(token: Token = this.token): string {
    switch (token.kind) {
      case 'eof':
        return 'end of script';
      case 'semi':
        return token.auto ? 'newline' : "';'";
      case 'string':
        return `string ${JSON.stringify(token.text.length > 20 ? `${token.text.slice(0, 20)}...` : token.text)}`;
      case 'keyword':
        return `keyword ${token.text}`;
      case 'ident':
        return `name ${token.text}`;
      default:
        return `'${token.text}'`;
    }
  }

  private expectOp(text: string, context: string): Located {
    const at = this.at();
    if (!this.isOp(text)) {
      const found = this.isSemi() && this.token.auto ? 'newline' : this.describe();
      this.fail('SYNTAX_ERROR', at, `expected '${text}' ${context}, found ${found}`);
    }
    this.next();
    return at;
  }

  private enter(at: Located): void {
    if (++this.depth > MAX_NESTING) this.fail('NESTING_TOO_DEEP', at, `nesting deeper than ${MAX_NESTING} levels; split the logic into flatter conditions`);
  }

  private leave(): void {
    this.depth--;
  }

  /**
   * Skip the rest of a broken statement: out of any brackets it opened, then up to its ';' or to the
   * '}' that closes the enclosing block (left for the block to consume).
   */
  private synchronize(level: number): void {
    while (!this.isEof()) {
      if (this.open <= level) {
        if (this.isSemi()) {
          this.next();
          return;
        }
        if (this.isOp('}')) return;
      }
      this.next();
    }
  }

  // ---- statements --------------------------------------------------------------------------------

  private endsList(context: ListContext): boolean {
    if (this.isEof()) return true;
    if (context === 'script') return false;
    if (this.isOp('}')) return true;
    return context === 'clause' && (this.isKeyword('case') || this.isKeyword('default'));
  }

  private parseStatementList(context: ListContext): Stmt[] {
    const list: Stmt[] = [];
    while (!this.endsList(context)) {
      if (this.isSemi()) {
        this.next();
        continue;
      }
      if (context === 'script' && this.isOp('}')) {
        this.report('SYNTAX_ERROR', this.at(), "unexpected '}': it closes no block");
        this.recovered = true;
        this.next();
        this.open = 0;
        continue;
      }
      const depth = this.depth;
      const level = this.open;
      try {
        const parsed = this.parseStatement();
        if (Array.isArray(parsed)) list.push(...parsed);
        else list.push(parsed);
        if (this.isSemi()) this.next();
        else if (!this.endsList(context)) {
          this.fail('SYNTAX_ERROR', this.at(), `unexpected ${this.describe()} at end of statement; put each statement on its own line`);
        }
        this.quiet = false;
      } catch (error) {
        if (!(error instanceof ParseAbort)) throw error;
        this.depth = depth;
        this.recovered = true;
        this.quiet = true;
        this.synchronize(level);
      }
    }
    return list;
  }

  private parseStatement(): Stmt | Stmt[] {
    const token = this.token;
    const at = this.at();
    if (token.kind === 'keyword') {
      switch (token.text) {
        case 'var':
          return this.parseVarDeclaration();
        case 'const':
          return this.parseConstDeclaration();
        case 'return':
          return this.parseReturn();
        case 'if':
          return this.parseIf();
        case 'switch':
          return this.parseSwitch();
        case 'func':
          if (this.peek().kind === 'ident') return this.parseFunctionDeclaration();
          break;
        case 'for':
          // The header may contain explicit semicolons (for i := 0; i < n; i++), so skip to the body first.
          this.report('FORBIDDEN_LOOP', at, forbiddenMessage('FORBIDDEN_LOOP'));
          this.skipToBlock();
          throw new ParseAbort();
        case 'go':
          this.fail('FORBIDDEN_GOROUTINE', at, forbiddenMessage('FORBIDDEN_GOROUTINE'));
          break;
        case 'defer':
          this.fail('FORBIDDEN_DEFER', at, forbiddenMessage('FORBIDDEN_DEFER'));
          break;
        case 'select':
          this.fail('FORBIDDEN_SELECT', at, forbiddenMessage('FORBIDDEN_SELECT'));
          break;
        case 'import':
          this.fail('FORBIDDEN_IMPORT', at, forbiddenMessage('FORBIDDEN_IMPORT'));
          break;
        case 'package':
          this.fail('FORBIDDEN_PACKAGE_CLAUSE', at, forbiddenMessage('FORBIDDEN_PACKAGE_CLAUSE'));
          break;
        case 'type':
          this.fail('UNSUPPORTED_TYPE_DECLARATION', at, 'type declarations are not supported; use string, int, bool and []string values');
          break;
        case 'break':
        case 'fallthrough': {
          this.next();
          if (this.token.kind === 'ident') {
            this.fail(
              'UNSUPPORTED_BRANCH',
              this.at(),
              `labels are not supported (${token.text} ${this.token.text}); a plain ${token.text} applies to the innermost switch`,
            );
          }
          if (token.text === 'break') return { kind: 'BreakStmt', line: at.line, column: at.column };
          return { kind: 'FallthroughStmt', line: at.line, column: at.column };
        }
        case 'continue':
        case 'goto':
          this.fail('UNSUPPORTED_BRANCH', at, `${token.text} is not supported: there are no loops or labels; return a route key where the decision is made`);
          break;
        case 'else':
          this.fail('SYNTAX_ERROR', at, 'else without a preceding if');
          break;
        case 'case':
        case 'default':
          this.fail('SYNTAX_ERROR', at, `${token.text} outside a switch`);
          break;
      }
    }
    if (this.isOp('{')) return this.parseBlock('to open the block');
    if (token.kind === 'ident' && this.peek().kind === 'op' && this.peek().text === ':') {
      this.fail('UNSUPPORTED_BRANCH', at, `labels are not supported (${token.text}:); return a route key where the decision is made`);
    }
    return this.parseSimpleStatement();
  }

  private parseSimpleStatement(): SimpleStmt {
    const at = this.at();
    const left = this.parseExpressionList();
    const operator = this.token;
    if (operator.kind === 'op') {
      if (operator.text === ':=') {
        this.next();
        const names: Ident[] = [];
        for (const target of left) {
          if (target.kind === 'Ident') names.push(target);
          else this.fail('SYNTAX_ERROR', target, 'only names can appear on the left of :=');
        }
        const values = this.parseExpressionList();
        const declaration: ShortVarDecl = { kind: 'ShortVarDecl', line: at.line, column: at.column, names, values };
        return declaration;
      }
      if (operator.text === '=') {
        this.next();
        const values = this.parseExpressionList();
        const assignment: Assign = { kind: 'Assign', line: at.line, column: at.column, targets: left, values };
        return assignment;
      }
      if (ASSIGN_OPERATORS.has(operator.text)) {
        this.report('UNSUPPORTED_ARITHMETIC', operator, `${operator.text} is arithmetic, which is not part of the language; assign a new value with = instead`);
        this.next();
        const values = this.parseExpressionList();
        return this.badStatement(at, [...left, ...values]);
      }
      if (operator.text === '++' || operator.text === '--') {
        this.report('UNSUPPORTED_ARITHMETIC', operator, `${operator.text} is arithmetic, which is not part of the language; there are no counters or loops`);
        this.next();
        return this.badStatement(at, left);
      }
      if (operator.text === '<-') {
        this.fail('FORBIDDEN_CHANNEL', operator, forbiddenMessage('FORBIDDEN_CHANNEL'));
      }
    }
    if (left.length > 1) this.fail('SYNTAX_ERROR', left[1], 'unexpected list of expressions; use := or = to assign several values');
    const statement: ExprStmt = { kind: 'ExprStmt', line: at.line, column: at.column, expr: left[0] };
    return statement;
  }

  private badStatement(at: Located, parts: Expr[]): ExprStmt {
    const bad: BadExpr = { kind: 'BadExpr', line: at.line, column: at.column, parts };
    return { kind: 'ExprStmt', line: at.line, column: at.column, expr: bad };
  }

  /** `const x = 1`, `const x int = 1`, or a group `const ( a = iota; b; c )` whose specs without values repeat the previous ones. */
  private parseConstDeclaration(): Stmt[] {
    this.next(); // const
    if (!this.isOp('(')) return [this.parseConstSpec(0, null)];
    this.next();
    const specs: ConstDecl[] = [];
    while (!this.isOp(')')) {
      if (this.isEof()) this.fail('SYNTAX_ERROR', this.at(), "missing ')' to close the const group");
      if (this.isSemi()) {
        this.next();
        continue;
      }
      specs.push(this.parseConstSpec(specs.length, specs.length > 0 ? specs[specs.length - 1] : null));
      if (this.isSemi()) this.next();
      else if (!this.isOp(')')) this.fail('SYNTAX_ERROR', this.at(), `unexpected ${this.describe()} in const group; put each declaration on its own line`);
    }
    this.next();
    return specs;
  }

  private parseConstSpec(iota: number, previous: ConstDecl | null): ConstDecl {
    const at = this.at();
    const names = [this.parseName('in const declaration')];
    while (this.isOp(',')) {
      this.next();
      names.push(this.parseName('in const declaration'));
    }
    let type: TypeRef | null = null;
    if (!this.isOp('=') && !this.isSemi() && !this.isOp(')')) type = this.parseType();
    if (this.isOp('=')) {
      this.next();
      return { kind: 'ConstDecl', line: at.line, column: at.column, names, type, values: this.parseExpressionList(), iota, implicit: false };
    }
    if (type !== null || previous === null)
      this.fail('SYNTAX_ERROR', this.at(), `missing init expression for const declaration: write const ${names[0].name} = value`);
    return { kind: 'ConstDecl', line: at.line, column: at.column, names, type: previous.type, values: previous.values, iota, implicit: true };
  }

  private parseVarDeclaration(): Stmt[] {
    this.next(); // var
    if (!this.isOp('(')) return [this.parseVarSpec()];
    this.next();
    const specs: Stmt[] = [];
    while (!this.isOp(')')) {
      if (this.isEof()) this.fail('SYNTAX_ERROR', this.at(), "missing ')' to close the var group");
      if (this.isSemi()) {
        this.next();
        continue;
      }
      specs.push(this.parseVarSpec());
      if (this.isSemi()) this.next();
      else if (!this.isOp(')')) this.fail('SYNTAX_ERROR', this.at(), `unexpected ${this.describe()} in var group; put each declaration on its own line`);
    }
    this.next();
    return specs;
  }

  private parseVarSpec(): VarDecl {
    const at = this.at();
    const names = [this.parseName('in declaration')];
    while (this.isOp(',')) {
      this.next();
      names.push(this.parseName('in declaration'));
    }
    let type: TypeRef | null = null;
    let values: Expr[] = [];
    if (!this.isOp('=')) type = this.parseType();
    if (this.isOp('=')) {
      this.next();
      values = this.parseExpressionList();
    }
    return { kind: 'VarDecl', line: at.line, column: at.column, names, type, values };
  }

  private parseName(context: string): Ident {
    const token = this.token;
    if (token.kind !== 'ident') this.fail('SYNTAX_ERROR', this.at(), `expected a name ${context}, found ${this.describe()}`);
    this.next();
    return { kind: 'Ident', line: token.line, column: token.column, name: token.text };
  }

  private parseReturn(): ReturnStmt {
    const at = this.at();
    this.next();
    const values = this.isSemi() || this.isEof() || this.isOp('}') || this.isKeyword('case') || this.isKeyword('default') ? [] : this.parseExpressionList();
    return { kind: 'ReturnStmt', line: at.line, column: at.column, values };
  }

  private parseBlock(context: string): Block {
    if (this.isSemi() && this.token.auto && this.peek().kind === 'op' && this.peek().text === '{') {
      // The newline rule ended the line before '{'; say so and read on as if it were one line.
      this.report('SYNTAX_ERROR', this.at(), 'unexpected newline: put the opening { on the same line');
      this.next();
    }
    const at = this.at();
    this.expectOp('{', context);
    this.enter(at);
    const body = this.parseStatementList('block');
    this.leave();
    const close = this.at();
    if (!this.isOp('}')) {
      this.report('SYNTAX_ERROR', close, `missing '}' to close the block opened at line ${at.line}`);
      this.recovered = true;
    } else this.next();
    return { kind: 'Block', line: at.line, column: at.column, body, close };
  }

  /** The optional `init;` and the condition or tag of an if or switch header. */
  private parseHeader(keyword: 'if' | 'switch'): { init: SimpleStmt | null; expr: Expr | null } {
    let init: SimpleStmt | null = null;
    let expr: Expr | null = null;
    if (this.isOp('{')) return { init, expr };
    let first: SimpleStmt | null = null;
    if (!this.isSemi()) first = this.parseSimpleStatement();
    if (this.isSemi() && this.token.auto && this.peek().kind === 'op' && this.peek().text === '{' && first?.kind === 'ExprStmt') {
      this.report('SYNTAX_ERROR', this.at(), `unexpected newline: put the opening { on the same line as ${keyword}`);
      this.next();
      return { init, expr: first.expr };
    }
    if (this.isSemi()) {
      if (this.token.auto) this.fail('SYNTAX_ERROR', this.at(), `unexpected newline: put the opening { on the same line as ${keyword}`);
      this.next();
      init = first;
      if (!this.isOp('{')) expr = this.parseExpression();
    } else if (first) {
      if (first.kind !== 'ExprStmt') {
        this.fail(
          'SYNTAX_ERROR',
          first,
          `${keyword === 'if' ? 'condition' : 'switch value'} expected, but found a ${first.kind === 'Assign' ? 'assignment' : 'declaration'}; write ${keyword} x := value; condition {`,
        );
      }
      expr = first.expr;
    }
    return { init, expr };
  }

  private parseIf(): IfStmt {
    const at = this.at();
    this.next();
    const { init, expr } = this.parseHeader('if');
    if (!expr) this.fail('SYNTAX_ERROR', this.at(), 'missing condition in if statement');
    const then = this.parseBlock('after the if condition');
    let otherwise: IfStmt | Block | null = null;
    if (this.isSemi() && this.token.auto && this.peek().kind === 'keyword' && this.peek().text === 'else') {
      // Go's newline rule ends the if at '}'; say so instead of "unexpected else", and read on.
      this.next();
      this.report('ELSE_ON_NEW_LINE', this.at(), 'else must be on the same line as the closing } of the if block: write } else {');
    }
    if (this.isKeyword('else')) {
      this.next();
      if (this.isKeyword('if')) otherwise = this.parseIf();
      else if (this.isOp('{')) otherwise = this.parseBlock('after else');
      else this.fail('SYNTAX_ERROR', this.at(), `else must be followed by if or a block { ... }, found ${this.describe()}`);
    }
    return { kind: 'IfStmt', line: at.line, column: at.column, init, cond: expr, then, otherwise };
  }

  private parseSwitch(): SwitchStmt {
    const at = this.at();
    this.next();
    const { init, expr } = this.parseHeader('switch');
    this.expectOp('{', 'to open the switch body');
    this.enter(at);
    const clauses: CaseClause[] = [];
    while (!this.isOp('}') && !this.isEof()) {
      const clauseAt = this.at();
      if (this.isKeyword('case')) {
        this.next();
        const values = this.parseExpressionList();
        this.expectOp(':', 'after the case values');
        clauses.push({ kind: 'CaseClause', line: clauseAt.line, column: clauseAt.column, values, body: this.parseStatementList('clause') });
      } else if (this.isKeyword('default')) {
        this.next();
        this.expectOp(':', 'after default');
        clauses.push({ kind: 'CaseClause', line: clauseAt.line, column: clauseAt.column, values: null, body: this.parseStatementList('clause') });
      } else if (this.isSemi()) {
        this.next();
      } else {
        this.report('SYNTAX_ERROR', clauseAt, `expected case or default, found ${this.describe()}`);
        this.recovered = true;
        const level = this.open;
        while (!this.isOp('}') && !this.isKeyword('case') && !this.isKeyword('default') && !this.isEof()) this.synchronize(level);
      }
    }
    this.leave();
    if (!this.isOp('}')) {
      this.report('SYNTAX_ERROR', this.at(), `missing '}' to close the switch at line ${at.line}`);
      this.recovered = true;
    } else this.next();
    return { kind: 'SwitchStmt', line: at.line, column: at.column, init, tag: expr, clauses };
  }

  /** `func name(...) T { ... }` is not a statement Go allows inside a function; read it as the closure it should be. */
  private parseFunctionDeclaration(): Stmt {
    const at = this.at();
    this.next();
    const name = this.parseName('after func');
    const literal = this.parseFunctionRest(at);
    if (name.name === 'main' && literal.params.length === 0 && literal.results.length === 0) {
      this.report('UNSUPPORTED_FUNCTION_DECLARATION', at, 'func main is not needed: the script is already the function body; write its statements directly');
      return literal.body;
    }
    this.report(
      'UNSUPPORTED_FUNCTION_DECLARATION',
      at,
      `function declarations are not supported: write ${name.name} := func(...) ... { ... } before its first use`,
    );
    const declaration: ShortVarDecl = { kind: 'ShortVarDecl', line: at.line, column: at.column, names: [name], values: [literal] };
    return declaration;
  }

  // ---- types -------------------------------------------------------------------------------------

  private typeRef(at: Located, name: TypeRef['name']): TypeRef {
    return { kind: 'TypeRef', line: at.line, column: at.column, name };
  }

  private parseType(): TypeRef {
    const at = this.at();
    const token = this.token;
    if (token.kind === 'ident') {
      this.next();
      let name = token.text;
      if (this.isOp('.') && this.peek().kind === 'ident') {
        this.next();
        name += `.${this.token.text}`;
        this.next();
      }
      return this.namedType(at, name);
    }
    if (token.kind === 'op') {
      switch (token.text) {
        case '[': {
          this.next();
          if (this.isOp(']')) {
            this.next();
            const element = this.parseType();
            if (element.name === 'string') return this.typeRef(at, 'list');
            if (element.name !== 'invalid')
              this.report('UNSUPPORTED_TYPE', at, `[]${element.name === 'list' ? '[]string' : element.name} is not available; the only list type is []string`);
            return this.typeRef(at, 'invalid');
          }
          this.report('UNSUPPORTED_TYPE', at, 'arrays are not available; use a []string list');
          this.skipBalancedFrom('[', ']', true);
          this.parseType();
          return this.typeRef(at, 'invalid');
        }
        case '*':
          this.report('FORBIDDEN_POINTER', at, forbiddenMessage('FORBIDDEN_POINTER'));
          this.next();
          this.parseType();
          return this.typeRef(at, 'invalid');
        case '<-':
          this.report('FORBIDDEN_CHANNEL', at, forbiddenMessage('FORBIDDEN_CHANNEL'));
          this.next();
          this.parseType();
          return this.typeRef(at, 'invalid');
        case '(': {
          this.next();
          const inner = this.parseType();
          this.expectOp(')', 'to close the parenthesized type');
          return inner;
        }
      }
    }
    if (token.kind === 'keyword') {
      switch (token.text) {
        case 'map':
          this.report('FORBIDDEN_MAP', at, forbiddenMessage('FORBIDDEN_MAP'));
          this.skipMapType();
          return this.typeRef(at, 'invalid');
        case 'chan':
          this.report('FORBIDDEN_CHANNEL', at, forbiddenMessage('FORBIDDEN_CHANNEL'));
          this.next();
          if (this.isOp('<-')) this.next();
          this.parseType();
          return this.typeRef(at, 'invalid');
        case 'func':
          return this.parseFuncType(at);
        case 'struct':
        case 'interface':
          this.report('UNSUPPORTED_TYPE', at, `${token.text} types are not available; use string, int, bool or []string`);
          this.next();
          if (this.isOp('{')) this.skipBalancedFrom('{', '}', false);
          return this.typeRef(at, 'invalid');
      }
    }
    this.fail('SYNTAX_ERROR', at, `expected a type, found ${this.describe()}`);
  }

  /** `func(string, int) bool`, or with parameter names: `func(device string) bool`. */
  private parseFuncType(at: Located): TypeRef {
    this.next(); // func
    this.expectOp('(', 'to open the parameter types');
    // As in a parameter list, a lone name is a parameter name when some entry is `name type`, else a type.
    const entries: { at: Located; name: string | null; type: TypeRef | null }[] = [];
    while (!this.isOp(')')) {
      const entryAt = this.at();
      if (this.isOp('...')) {
        this.report('INVALID_CLOSURE_SIGNATURE', entryAt, 'closures cannot be variadic; take a fixed number of bool, int or string parameters');
        this.next();
      }
      if (this.token.kind === 'ident' && this.peek().kind === 'op' && (this.peek().text === ',' || this.peek().text === ')')) {
        entries.push({ at: entryAt, name: this.token.text, type: null });
        this.next();
      } else if (this.token.kind === 'ident' && !(this.peek().kind === 'op' && this.peek().text === '.')) {
        const name = this.token.text;
        this.next();
        entries.push({ at: entryAt, name, type: this.parseType() });
      } else entries.push({ at: entryAt, name: null, type: this.parseType() });
      if (this.isOp(',')) this.next();
      else if (!this.isOp(')')) this.fail('SYNTAX_ERROR', this.at(), `expected ',' or ')' in parameter list, found ${this.describe()}`);
    }
    this.next();
    const named = entries.some((e) => e.name !== null && e.type !== null);
    const params: TypeRef[] = [];
    let pendingType: TypeRef | null = null;
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (!named) {
        params.unshift(entry.type ?? this.namedType(entry.at, entry.name as string));
        continue;
      }
      if (entry.type !== null && entry.name !== null) pendingType = entry.type;
      if (entry.name === null || pendingType === null) {
        this.report('SYNTAX_ERROR', entry.at, 'mixed named and unnamed parameters; give every parameter a name and a type');
        continue;
      }
      params.unshift(entry.type ?? pendingType);
    }
    const results = this.parseResults();
    return { kind: 'TypeRef', line: at.line, column: at.column, name: 'func', params, results };
  }

  /** A type written as a name: string, int or bool; any other is reported. */
  private namedType(at: Located, name: string): TypeRef {
    if (SUPPORTED_TYPE_NAMES.has(name)) return this.typeRef(at, name as 'string' | 'int' | 'bool');
    this.report('UNSUPPORTED_TYPE', at, `type ${name} is not available; use string, int, bool or []string`);
    return this.typeRef(at, 'invalid');
  }

  private skipMapType(): void {
    this.next(); // map
    if (this.isOp('[')) {
      this.skipBalancedFrom('[', ']', false);
      this.parseType();
    }
  }

  /** Skips a construct's header and its { ... } body. */
  private skipToBlock(): void {
    let depth = 0;
    while (!this.isEof()) {
      if (this.isOp('(') || this.isOp('[')) depth++;
      else if (this.isOp(')') || this.isOp(']')) depth = Math.max(0, depth - 1);
      else if (depth === 0 && this.isOp('}')) return;
      else if (depth === 0 && this.isOp('{')) {
        this.skipBalancedFrom('{', '}', false);
        return;
      }
      this.next();
    }
  }

  /** Skips from an opening token to its matching close (both consumed). */
  private skipBalancedFrom(open: string, close: string, alreadyOpen: boolean): void {
    let depth = alreadyOpen ? 1 : 0;
    if (!alreadyOpen) {
      if (!this.isOp(open)) return;
      this.next();
      depth = 1;
    }
    while (depth > 0 && !this.isEof()) {
      if (this.isOp(open)) depth++;
      else if (this.isOp(close)) depth--;
      this.next();
    }
  }

  // ---- expressions -------------------------------------------------------------------------------

  private parseExpressionList(): Expr[] {
    const list = [this.parseExpression()];
    while (this.isOp(',')) {
      this.next();
      list.push(this.parseExpression());
    }
    return list;
  }

  private parseExpression(): Expr {
    this.enter(this.at());
    const expr = this.parseBinary(1);
    this.leave();
    return expr;
  }

  private parseBinary(minPrecedence: number): Expr {
    let left = this.parseUnary();
    let chain = 0;
    for (;;) {
      const operator = this.token;
      const precedence = operator.kind === 'op' ? PRECEDENCE[operator.text] : undefined;
      if (precedence === undefined || precedence < minPrecedence) return left;
      this.next();
      if (operator.text === '&&' || operator.text === '||') {
        // Long || / && chains become balanced trees: same meaning and order, logarithmic depth.
        const operands = [left, this.parseBinary(precedence + 1)];
        while (this.isOp(operator.text)) {
          this.next();
          operands.push(this.parseBinary(precedence + 1));
        }
        left = balance(operator.text as '&&' | '||', operands, 0, operands.length);
        continue;
      }
      if (++chain > MAX_NESTING) this.fail('NESTING_TOO_DEEP', operator, `more than ${MAX_NESTING} operators in a row; simplify the expression`);
      const right = this.parseBinary(precedence + 1);
      left = this.binary(operator, left, right);
    }
  }

  private binary(operator: Token, left: Expr, right: Expr): Expr {
    if (COMPARISONS.has(operator.text)) {
      return { kind: 'BinaryExpr', line: left.line, column: left.column, op: operator.text as BinaryOperator, left, right };
    }
    const message =
      operator.text === '+'
        ? '+ is not available: arithmetic and string concatenation are not part of the language; compare values instead (== != < > <= >=), or test parts of strings with strings.HasPrefix, strings.HasSuffix or strings.Contains'
        : `${operator.text} is not available: arithmetic and bit operations are not part of the language; compare values with == != < > <= >= and combine conditions with && || !`;
    this.report('UNSUPPORTED_ARITHMETIC', operator, message);
    return { kind: 'BadExpr', line: left.line, column: left.column, parts: [left, right] };
  }

  private parseUnary(): Expr {
    const token = this.token;
    const at = this.at();
    if (token.kind !== 'op') return this.parsePrimary();
    switch (token.text) {
      case '!':
      case '-': {
        this.next();
        this.enter(at);
        const operand = this.parseUnary();
        this.leave();
        return { kind: 'UnaryExpr', line: at.line, column: at.column, op: token.text, operand };
      }
      case '+':
      case '^':
        this.report(
          'UNSUPPORTED_ARITHMETIC',
          at,
          token.text === '+'
            ? 'unary + is arithmetic, which is not part of the language; write the number alone'
            : '^ is a bit operation, which is not part of the language; use ! to negate a condition',
        );
        break;
      case '*':
      case '&':
        this.report('FORBIDDEN_POINTER', at, forbiddenMessage('FORBIDDEN_POINTER'));
        break;
      case '<-':
        this.report('FORBIDDEN_CHANNEL', at, forbiddenMessage('FORBIDDEN_CHANNEL'));
        break;
      default:
        return this.parsePrimary();
    }
    this.next();
    this.enter(at);
    const operand = this.parseUnary();
    this.leave();
    return { kind: 'BadExpr', line: at.line, column: at.column, parts: [operand] };
  }

  private parsePrimary(): Expr {
    let expr = this.parseOperand();
    for (;;) {
      if (this.isOp('.')) {
        this.next();
        if (this.token.kind === 'ident') {
          const namePosition = this.at();
          const name = this.token.text;
          this.next();
          expr = { kind: 'SelectorExpr', line: expr.line, column: expr.column, target: expr, name, namePosition };
          continue;
        }
        if (this.isOp('(')) {
          this.report('UNSUPPORTED_TYPE_ASSERTION', this.at(), 'type assertions and type switches are not supported: every value already has a fixed type');
          this.skipBalancedFrom('(', ')', false);
          expr = { kind: 'BadExpr', line: expr.line, column: expr.column, parts: [expr] };
          continue;
        }
        this.fail('SYNTAX_ERROR', this.at(), `expected a name after '.', found ${this.describe()}`);
      }
      if (this.isOp('(')) {
        expr = this.parseCall(expr);
        continue;
      }
      if (this.isOp('[')) {
        expr = this.parseIndex(expr);
        continue;
      }
      return expr;
    }
  }

  private parseIndex(target: Expr): Expr {
    const at = this.at();
    this.next();
    const parts: Expr[] = [target];
    this.enter(at);
    if (!this.isOp(']') && !this.isOp(':')) parts.push(this.parseExpression());
    while (this.isOp(':')) {
      this.next();
      if (!this.isOp(']') && !this.isOp(':')) parts.push(this.parseExpression());
    }
    this.leave();
    this.expectOp(']', 'to close the index');
    const key = parts[1];
    const subject =
      key && key.kind === 'StringLit' && parts.length === 2
        ? `indexing is not allowed: write trackingField(${JSON.stringify(key.value)}) or dataBuffer(${JSON.stringify(key.value)})`
        : undefined;
    this.report('FORBIDDEN_INDEXING', at, subject ? `${subject} to read a parameter` : forbiddenMessage('FORBIDDEN_INDEXING'));
    return { kind: 'BadExpr', line: target.line, column: target.column, parts };
  }

  /** The current token starts a type rather than a value. */
  private startsType(): boolean {
    const next = this.token;
    if (next.kind === 'keyword') return ['map', 'chan', 'func', 'struct', 'interface'].includes(next.text);
    if (next.kind === 'op') return next.text === '[' || next.text === '*';
    return next.kind === 'ident' && SUPPORTED_TYPE_NAMES.has(next.text);
  }

  private parseCall(callee: Expr): Expr {
    const open = this.at();
    this.next();
    this.enter(open);
    const args: Expr[] = [];
    let spread = false;
    // make and new take a type first; read it as one so that the checker reports the built-in itself
    // (unless it cannot be a type: a local may shadow make or new).
    const takesType = callee.kind === 'Ident' && (callee.name === 'make' || callee.name === 'new') && this.startsType();
    while (!this.isOp(')')) {
      if (this.isEof()) this.fail('SYNTAX_ERROR', this.at(), `missing ')' to close the call opened at line ${open.line}`);
      if (spread) {
        const misplaced = args[args.length - 1];
        this.report('INVALID_SPREAD', misplaced, 'can only use ... with the final argument');
        args[args.length - 1] = { kind: 'BadExpr', line: misplaced.line, column: misplaced.column, parts: [misplaced] };
        spread = false;
      }
      if (takesType && args.length === 0) {
        const type = this.parseType();
        args.push({ kind: 'BadExpr', line: type.line, column: type.column, parts: [] });
      } else args.push(this.parseExpression());
      if (this.isOp('...')) {
        spread = true;
        this.next();
      }
      if (this.isOp(',')) {
        this.next();
        continue;
      }
      if (this.isOp(')')) break;
      if (this.isSemi() && this.token.auto) this.fail('SYNTAX_ERROR', this.at(), 'unexpected newline in argument list; possibly missing comma or )');
      this.fail('SYNTAX_ERROR', this.at(), `expected ',' or ')' in argument list, found ${this.describe()}`);
    }
    this.leave();
    const close = this.at();
    this.next();
    return { kind: 'CallExpr', line: callee.line, column: callee.column, callee, args, spread, close };
  }

  private parseOperand(): Expr {
    const token = this.token;
    const at = this.at();
    switch (token.kind) {
      case 'int':
        this.next();
        return { kind: 'IntLit', line: at.line, column: at.column, value: token.value, text: token.text };
      case 'string':
        this.next();
        return { kind: 'StringLit', line: at.line, column: at.column, value: token.text };
      case 'bad':
        this.next();
        return { kind: 'BadExpr', line: at.line, column: at.column, parts: [] };
      case 'ident':
        this.next();
        return { kind: 'Ident', line: at.line, column: at.column, name: token.text };
      case 'op':
        if (token.text === '(') {
          this.next();
          const expr = this.parseExpression();
          this.expectOp(')', 'to close the parenthesis');
          return { kind: 'ParenExpr', line: at.line, column: at.column, expr };
        }
        if (token.text === '[') return this.parseListLiteral();
        break;
      case 'keyword':
        switch (token.text) {
          case 'func':
            this.next();
            return this.parseFunctionRest(at);
          case 'map':
            this.report('FORBIDDEN_MAP', at, forbiddenMessage('FORBIDDEN_MAP'));
            this.skipMapType();
            if (this.isOp('{')) this.skipBalancedFrom('{', '}', false);
            return { kind: 'BadExpr', line: at.line, column: at.column, parts: [] };
          case 'chan':
            this.fail('FORBIDDEN_CHANNEL', at, forbiddenMessage('FORBIDDEN_CHANNEL'));
            break;
          case 'struct':
          case 'interface':
            this.report('UNSUPPORTED_TYPE', at, `${token.text} types are not available; use string, int, bool or []string`);
            this.next();
            if (this.isOp('{')) this.skipBalancedFrom('{', '}', false);
            if (this.isOp('{')) this.skipBalancedFrom('{', '}', false);
            return { kind: 'BadExpr', line: at.line, column: at.column, parts: [] };
        }
        break;
    }
    if (token.kind === 'semi' && token.auto) this.fail('SYNTAX_ERROR', at, 'unexpected newline, expected an expression');
    this.fail('SYNTAX_ERROR', at, `expected an expression, found ${this.describe()}`);
  }

  private parseListLiteral(): Expr {
    const at = this.at();
    this.next(); // [
    let supported = true;
    if (this.isOp(']')) {
      this.next();
      const element = this.parseType();
      if (element.name !== 'string') {
        supported = false;
        if (element.name !== 'invalid') {
          this.report(
            'UNSUPPORTED_COMPOSITE_LITERAL',
            at,
            `[]${element.name === 'list' ? '[]string' : element.name}{...} is not available; the only list literal is []string{...}`,
          );
        }
      }
    } else {
      supported = false;
      this.report('UNSUPPORTED_COMPOSITE_LITERAL', at, 'arrays are not available; write a list as []string{"a", "b"}');
      this.skipBalancedFrom('[', ']', true);
      this.parseType();
    }
    if (!this.isOp('{')) this.fail('SYNTAX_ERROR', this.at(), `expected '{' after the list type, found ${this.describe()}; write []string{"a", "b"}`);
    this.next();
    this.enter(at);
    const elements: Expr[] = [];
    while (!this.isOp('}')) {
      if (this.isEof()) this.fail('SYNTAX_ERROR', this.at(), `missing '}' to close the list opened at line ${at.line}`);
      const element = this.parseExpression();
      if (this.isOp(':')) this.fail('SYNTAX_ERROR', this.at(), 'keyed elements are not supported; list the values: []string{"a", "b"}');
      elements.push(element);
      if (this.isOp(',')) {
        this.next();
        continue;
      }
      if (this.isOp('}')) break;
      if (this.isSemi() && this.token.auto) this.fail('SYNTAX_ERROR', this.at(), 'unexpected newline in list literal; possibly missing comma or }');
      this.fail('SYNTAX_ERROR', this.at(), `expected ',' or '}' in list literal, found ${this.describe()}`);
    }
    this.leave();
    this.next();
    if (!supported) return { kind: 'BadExpr', line: at.line, column: at.column, parts: elements };
    return { kind: 'ListLit', line: at.line, column: at.column, elements };
  }

  /** After `func`: parameters, results and body. */
  private parseFunctionRest(at: Located): FuncLit {
    this.enter(at);
    const params = this.parseParameters();
    const results = this.parseResults();
    const body = this.parseBlock('to open the function body');
    this.leave();
    return { kind: 'FuncLit', line: at.line, column: at.column, params, results, body };
  }

  private parseParameters(): Parameter[] {
    this.expectOp('(', 'to open the parameter list');
    interface Entry {
      at: Located;
      name: string | null;
      type: TypeRef | null;
    }
    const entries: Entry[] = [];
    while (!this.isOp(')')) {
      const at = this.at();
      if (this.isOp('...')) {
        this.report('INVALID_CLOSURE_SIGNATURE', at, 'closures cannot be variadic; take a fixed number of bool, int or string parameters');
        this.next();
      }
      if (this.token.kind === 'ident' && this.peek().kind === 'op' && (this.peek().text === ',' || this.peek().text === ')')) {
        entries.push({ at, name: this.token.text, type: null }); // a name of a group, or a lone type: decided below
        this.next();
      } else if (this.token.kind === 'ident' && !(this.peek().kind === 'op' && this.peek().text === '.')) {
        const name = this.token.text;
        this.next();
        if (this.isOp('...')) {
          this.report('INVALID_CLOSURE_SIGNATURE', this.at(), 'closures cannot be variadic; take a fixed number of bool, int or string parameters');
          this.next();
        }
        entries.push({ at, name, type: this.parseType() });
      } else {
        entries.push({ at, name: null, type: this.parseType() });
      }
      if (this.isOp(',')) this.next();
      else if (!this.isOp(')')) this.fail('SYNTAX_ERROR', this.at(), `expected ',' or ')' in parameter list, found ${this.describe()}`);
    }
    this.next();
    const named = entries.some((e) => e.name !== null && e.type !== null);
    if (!named) {
      // Only types, as Go allows: the parameters have no names and the body cannot read them.
      return entries.map((e) => ({ line: e.at.line, column: e.at.column, name: '_', type: e.type ?? this.namedType(e.at, e.name as string) }));
    }
    // Go groups `a, b string`: a name without a type takes the type of the next typed parameter.
    const params: Parameter[] = [];
    let pendingType: TypeRef | null = null;
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (entry.type !== null && entry.name !== null) pendingType = entry.type;
      if (entry.name === null || pendingType === null) {
        this.report('SYNTAX_ERROR', entry.at, 'mixed named and unnamed parameters; give every parameter a name and a type');
        continue;
      }
      params.unshift({ line: entry.at.line, column: entry.at.column, name: entry.name, type: entry.type ?? pendingType });
    }
    return params;
  }

  private parseResults(): TypeRef[] {
    if (this.isOp('(')) {
      this.next();
      const results: TypeRef[] = [];
      while (!this.isOp(')')) {
        if (this.token.kind === 'ident' && this.peek().kind !== 'op') {
          this.report('INVALID_CLOSURE_SIGNATURE', this.at(), 'named results are not supported; write func(...) bool');
          this.next();
        }
        results.push(this.parseType());
        if (this.isOp(',')) this.next();
        else if (!this.isOp(')')) this.fail('SYNTAX_ERROR', this.at(), `expected ',' or ')' in result list, found ${this.describe()}`);
      }
      this.next();
      return results;
    }
    const token = this.token;
    const startsType =
      token.kind === 'ident' ||
      (token.kind === 'op' && (token.text === '[' || token.text === '*' || token.text === '<-')) ||
      (token.kind === 'keyword' &&
        (token.text === 'map' || token.text === 'chan' || token.text === 'func' || token.text === 'struct' || token.text === 'interface'));
    return startsType ? [this.parseType()] : [];
  }
}

function balance(op: '&&' | '||', operands: Expr[], from: number, to: number): Expr {
  if (to - from === 1) return operands[from];
  const middle = (from + to) >>> 1;
  const left = balance(op, operands, from, middle);
  const right = balance(op, operands, middle, to);
  return { kind: 'BinaryExpr', line: left.line, column: left.column, op, left, right };
}
