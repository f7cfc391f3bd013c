// Syntax tree of a script. The parser builds it; the checker annotates it in place (types, bindings),
// and the compiler writes the annotated tree as a JavaScript function (codegen). Constructs the language rejects are kept
// as BadExpr (with their operands, so names inside still count as used) rather than dropped.
import type { HelperDefinition, ValueType, VariableDefinition } from './builtins';

export interface Located {
  line: number;
  column: number;
}

/** A type written in the source; anything outside the language is reported by the parser and becomes 'invalid'. */
export interface TypeRef extends Located {
  kind: 'TypeRef';
  name: ValueType | 'func' | 'invalid';
  /** For 'func': the parameter and result types of `func(string, int) bool`. */
  params?: TypeRef[];
  results?: TypeRef[];
}

// ---- Expressions -------------------------------------------------------------------------------

export interface StringLit extends Located {
  kind: 'StringLit';
  value: string;
}

export interface IntLit extends Located {
  kind: 'IntLit';
  /** A number when it is a safe integer, else a bigint (see integerValue in the lexer). */
  value: number | bigint;
  /** As written, e.g. 0x1F or 1_000. */
  text: string;
}

export interface Ident extends Located {
  kind: 'Ident';
  name: string;
  /** Set by the checker. */
  binding?: Binding;
  /** Set by the checker on nil: the type of nil it is (a func value or a []string). */
  nilType?: 'func' | 'list';
}

export interface ParenExpr extends Located {
  kind: 'ParenExpr';
  expr: Expr;
}

export type UnaryOperator = '!' | '-';

export interface UnaryExpr extends Located {
  kind: 'UnaryExpr';
  op: UnaryOperator;
  operand: Expr;
}

export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';
export type BinaryOperator = ComparisonOperator | '&&' | '||';

export interface BinaryExpr extends Located {
  kind: 'BinaryExpr';
  op: BinaryOperator;
  left: Expr;
  right: Expr;
  /** Set by the checker for comparisons: the type both operands share. */
  operandType?: ValueType;
}

export interface CallExpr extends Located {
  kind: 'CallExpr';
  callee: Expr;
  args: Expr[];
  /** The last argument is followed by `...`. */
  spread: boolean;
  /** Position of the closing parenthesis (Go reports missing arguments there). */
  close: Located;
  /** Set by the checker: what the call invokes. */
  target?: CallTarget;
}

export interface SelectorExpr extends Located {
  kind: 'SelectorExpr';
  target: Expr;
  name: string;
  namePosition: Located;
}

export interface Parameter extends Located {
  name: string;
  type: TypeRef;
  binding?: LocalBinding;
}

export interface FuncLit extends Located {
  kind: 'FuncLit';
  params: Parameter[];
  results: TypeRef[];
  body: Block;
}

/** `[]string{...}` */
export interface ListLit extends Located {
  kind: 'ListLit';
  elements: Expr[];
}

/** A rejected construct, already reported; its parts are still checked for names. */
export interface BadExpr extends Located {
  kind: 'BadExpr';
  parts: Expr[];
}

export type Expr = StringLit | IntLit | Ident | ParenExpr | UnaryExpr | BinaryExpr | CallExpr | SelectorExpr | FuncLit | ListLit | BadExpr;

// ---- Statements --------------------------------------------------------------------------------

export interface VarDecl extends Located {
  kind: 'VarDecl';
  names: Ident[];
  type: TypeRef | null;
  values: Expr[];
}

/** One spec of a const declaration; a spec of a group without values repeats the previous one's type and values. */
export interface ConstDecl extends Located {
  kind: 'ConstDecl';
  names: Ident[];
  type: TypeRef | null;
  values: Expr[];
  /** The value of iota: the index of the spec in its group. */
  iota: number;
  /** The values (and type) are repeated from the previous spec of the group. */
  implicit: boolean;
}

export interface ShortVarDecl extends Located {
  kind: 'ShortVarDecl';
  names: Ident[];
  values: Expr[];
  /** Per name: true when this declaration introduces it (false: plain assignment to an existing local). Set by the checker. */
  introduces?: boolean[];
}

export interface Assign extends Located {
  kind: 'Assign';
  targets: Expr[];
  values: Expr[];
}

export interface ExprStmt extends Located {
  kind: 'ExprStmt';
  expr: Expr;
}

/** `break`: leaves the innermost switch. */
export interface BreakStmt extends Located {
  kind: 'BreakStmt';
}

/** `fallthrough`: the last statement of a case runs the next case's body. */
export interface FallthroughStmt extends Located {
  kind: 'FallthroughStmt';
}

export interface ReturnStmt extends Located {
  kind: 'ReturnStmt';
  values: Expr[];
}

export interface Block extends Located {
  kind: 'Block';
  body: Stmt[];
  close: Located;
}

export interface IfStmt extends Located {
  kind: 'IfStmt';
  init: SimpleStmt | null;
  cond: Expr;
  then: Block;
  otherwise: IfStmt | Block | null;
}

export interface CaseClause extends Located {
  kind: 'CaseClause';
  /** null for `default`. */
  values: Expr[] | null;
  body: Stmt[];
}

export interface SwitchStmt extends Located {
  kind: 'SwitchStmt';
  init: SimpleStmt | null;
  tag: Expr | null;
  clauses: CaseClause[];
  /** Set by the checker: a break statement leaves this switch. */
  hasBreak?: boolean;
}

export type SimpleStmt = ExprStmt | ShortVarDecl | Assign;
export type Stmt = SimpleStmt | VarDecl | ConstDecl | ReturnStmt | BreakStmt | FallthroughStmt | Block | IfStmt | SwitchStmt;

export interface Script {
  body: Stmt[];
  end: Located;
}

// ---- Checker annotations -----------------------------------------------------------------------

/** A closure's type. Closures are values only in the sense that they can be called. */
export interface FuncType {
  kind: 'func';
  params: ValueType[];
  result: ValueType;
}

/**
 * 'nil' is the type of the predeclared nil, which only func values accept; 'invalid' marks an
 * expression already reported, so no further error cascades from it.
 */
export type Type = ValueType | FuncType | 'nil' | 'invalid';

/** The value of a constant expression. Ints are numbers when safe, else bigints; untyped ones may exceed int64. */
export type ConstValue = string | number | bigint | boolean;

export interface LocalBinding {
  kind: 'local';
  name: string;
  type: Type;
  /** Its number, unique in the script (the generated code names the variable after it); -1 for a constant. */
  id: number;
  line: number;
  column: number;
  used: boolean;
  isParameter: boolean;
  /** For closures declared with their literal: the literal, so calls compile against its body. */
  closure: FuncLit | null;
  /** For constants: the value (a constant has no variable and is never unused). */
  constant?: ConstValue;
  /** The variable is assigned after its declaration (a closure that is, is called through its value). */
  reassigned: boolean;
  /** A func variable read as a value (not only called), so it has to hold its closure. */
  valueRead?: boolean;
  /** The function literal whose body declares it; null at script level. */
  owner: FuncLit | null;
}

/** A predeclared variable; one object per variable and script, shared by every use. */
export interface VariableBinding {
  kind: 'variable';
  definition: VariableDefinition;
  /**
   * Set when the script assigns the variable: its number among the script's variables (see LocalBinding.id);
   * it is then read from the visitor on first use, and holds what the script assigns after.
   */
  id: number | null;
}

/** true, false, and iota inside a const declaration. */
export interface ConstantBinding {
  kind: 'constant';
  value: ConstValue;
}

/** The predeclared nil. */
export interface NilBinding {
  kind: 'nil';
}

export type Binding = LocalBinding | VariableBinding | ConstantBinding | NilBinding;

export type CallTarget =
  | { kind: 'helper'; helper: HelperDefinition }
  /** `func(...) T { ... }(args)` */
  | { kind: 'literal'; literal: FuncLit }
  /**
   * A call of a local of func type: of its literal directly when it was declared with one and never
   * reassigned, else through the func value it holds (nil until assigned).
   */
  | { kind: 'value'; binding: LocalBinding; type: FuncType }
  /** A conversion T(x) between the language's types. */
  | { kind: 'conversion'; to: ValueType };
