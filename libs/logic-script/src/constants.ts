// Constant expressions, as Go defines them for the language's types: literals, true and false,
// declared constants and iota, and what ! - comparisons, && ||, conversions and len of a constant
// string make of constants. The checker uses them for const declarations, duplicate cases and literal
// rules; the compiler folds them. Integer constants are exact (untyped ones may exceed int64 until
// they are used as an int, where the checker reports the overflow).
import type { ConstValue, Expr } from './ast';
import { negateInt } from './go/ints';
import { compareStrings, runeToString } from './go/strings';
import { utf8ByteLength } from './rules';

/** The value of a constant expression, or undefined when the expression is not constant. */
export function constantValue(expr: Expr): ConstValue | undefined {
  switch (expr.kind) {
    case 'StringLit':
    case 'IntLit':
      return expr.value;
    case 'ParenExpr':
      return constantValue(expr.expr);
    case 'Ident': {
      const binding = expr.binding;
      if (binding === undefined) return undefined;
      if (binding.kind === 'constant') return binding.value;
      if (binding.kind === 'local') return binding.constant;
      return undefined;
    }
    case 'UnaryExpr': {
      const inner = constantValue(expr.operand);
      if (expr.op === '-' && (typeof inner === 'number' || typeof inner === 'bigint')) return negateInt(inner);
      if (expr.op === '!' && typeof inner === 'boolean') return !inner;
      return undefined;
    }
    case 'BinaryExpr': {
      const left = constantValue(expr.left);
      if (left === undefined) return undefined;
      const right = constantValue(expr.right);
      if (right === undefined) return undefined;
      return foldBinary(expr.op, left, right);
    }
    case 'CallExpr': {
      const target = expr.target;
      if (target === undefined || expr.args.length !== 1 || expr.spread) return undefined;
      if (target.kind === 'conversion') {
        const value = constantValue(expr.args[0]);
        if (value === undefined) return undefined;
        return target.to === 'string' && typeof value !== 'string' ? runeToString(value as number | bigint) : value;
      }
      if (target.kind === 'helper' && target.helper.name === 'len') {
        const value = constantValue(expr.args[0]);
        return typeof value === 'string' ? utf8ByteLength(value) : undefined;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function foldBinary(op: string, left: ConstValue, right: ConstValue): ConstValue | undefined {
  if (op === '&&' || op === '||') {
    if (typeof left !== 'boolean' || typeof right !== 'boolean') return undefined;
    return op === '&&' ? left && right : left || right;
  }
  if (op === '==') return left === right;
  if (op === '!=') return left !== right;
  let order: number;
  if (typeof left === 'string' && typeof right === 'string') order = compareStrings(left, right);
  else if (typeof left !== 'boolean' && typeof left !== 'string' && typeof right !== 'boolean' && typeof right !== 'string') {
    order = left < right ? -1 : left > right ? 1 : 0;
  } else return undefined;
  switch (op) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
  return undefined;
}

/** A constant as Go source would show it in a message: "text", 42, true. */
export function formatConstant(value: unknown): string {
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? String(value);
}
