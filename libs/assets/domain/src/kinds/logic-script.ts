import { createHash } from 'node:crypto';
import { ErrorCodes } from '@funnel/contracts';
import { validate } from '@funnel/logic-script';
import type { KindRules } from './kind-rules';

const codeOf = (record: Record<string, unknown>) => String(record.code);

/** SHA-256 of the code's UTF-8 bytes, in hex: the same code always has the same hash. */
export function logicScriptCodeHash(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

/**
 * Logic scripts: the code must pass the routing-script validator (which also bounds it to
 * MAX_CODE_BYTES); a script that does not is a 400 `SCRIPT.INVALID` whose details are the
 * validator's diagnostics, each with its line and column. The stored record carries the code's
 * hash and the route keys the validator found, and the trimmed name.
 */
export const logicScriptRules: KindRules = {
  checkCode: ErrorCodes.SCRIPT_INVALID,
  check: (record) => validate(codeOf(record)).errors.map(({ line, column, code, message }) => ({ field: 'code', code, message, line, column })),
  normalize(record) {
    const code = codeOf(record);
    return { ...record, logicScriptName: String(record.logicScriptName).trim(), codeHash: logicScriptCodeHash(code), routeKeys: validate(code).routeKeys };
  },
};
