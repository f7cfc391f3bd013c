// Syntax tree of a script. The parser builds it; the checker annotates it in place (types, bindings),
// and the compiler turns the annotated tree into closures. Constructs the language rejects are kept
// as BadExpr (with their operands, so names inside still count as used) rather than dropped.
import type { HelperDefinition, ValueType, VariableDefinition } from './builtins';

export interface Located {
  line: number;
  column: number;
}

/** A type written in the source; anything outside the language is reported by the parser and becomes 'invalid'. */
export interface TypeRef extends Located {
  kind: 'TypeRef';
  name: ValueType | 'invalid';
}

// ---- Expressions -------------------------------------------------------------------------------

export interface StringLit extends Located {
  kind: 'StringLit';
  value: string;
}

export interface IntLit extends Located {
  kind: 'IntLit';
  value: number;
}

export interface Ident extends Located {
  kind: 'Ident';
  name: string;
  /** Set by the checker. */
  binding?: Binding;
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
}

export type SimpleStmt = ExprStmt | ShortVarDecl | Assign;
export type Stmt = SimpleStmt | VarDecl | ReturnStmt | Block | IfStmt | SwitchStmt;

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

/** 'invalid' marks an expression already reported, so no further error cascades from it. */
export type Type = ValueType | FuncType | 'invalid';

export interface LocalBinding {
  kind: 'local';
  name: string;
  type: Type;
  /** Index in the evaluation frame. */
  slot: number;
  line: number;
  column: number;
  used: boolean;
  isParameter: boolean;
  /** For closures: the literal, so calls compile against its body. */
  closure: FuncLit | null;
}

export interface VariableBinding {
  kind: 'variable';
  definition: VariableDefinition;
}

export interface ConstantBinding {
  kind: 'constant';
  value: boolean;
}

export type Binding = LocalBinding | VariableBinding | ConstantBinding;

export type CallTarget = { kind: 'helper'; helper: HelperDefinition } | { kind: 'closure'; binding: LocalBinding };
