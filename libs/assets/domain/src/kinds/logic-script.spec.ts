import { createHash } from 'node:crypto';
import { ErrorCodes, ServiceError } from '@funnel/contracts';
import { MAX_CODE_BYTES } from '@funnel/logic-script';
import type { AssetRecord } from '../asset-events';
import { KIND_RULES } from './index';
import { assertKindRules } from './kind-rules';

const ROUTING = 'if country == "US" {\n  return "us"\n}\nreturn "default"\n';
const script = (fields: Record<string, unknown> = {}) =>
  ({ idLogicScript: 'AAAAAAAAAAAA', logicScriptName: 'Geo', code: ROUTING, status: 'active', idCategory: '', ...fields }) as AssetRecord;

describe('logic script rules', () => {
  const rules = KIND_RULES.logicscript;

  it('given a valid script, when checked, then nothing is wrong', () => {
    expect(rules.check!(script())).toEqual([]);
  });

  it("given an invalid script, then each problem is one of the validator's diagnostics on field code, with line and column", () => {
    const problems = rules.check!(script({ code: 'return "a"\nfor {\n}\n' }));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems).toContainEqual({ field: 'code', code: 'FORBIDDEN_LOOP', line: 2, column: 1, message: expect.any(String) });
  });

  it('given a failed check, then the 400 is SCRIPT.INVALID with the diagnostics as details', () => {
    let error: ServiceError | undefined;
    try {
      assertKindRules('logicscript', rules, script({ code: 'for {\n}\nreturn "x"' }));
    } catch (caught) {
      error = caught as ServiceError;
    }
    expect(error).toMatchObject({ status: 400, code: ErrorCodes.SCRIPT_INVALID });
    expect(error!.details[0]).toMatchObject({ field: 'code', code: 'FORBIDDEN_LOOP', line: 1, column: 1 });
  });

  it('given another kind without a checkCode, then its problems stay REQUEST.VALIDATION_FAILED', () => {
    const rules = { check: () => [{ field: 'x', code: 'y', message: 'x is wrong' }] };
    expect(() => assertKindRules('thing', rules, script())).toThrow(
      expect.objectContaining({ code: ErrorCodes.VALIDATION, message: 'invalid thing: x is wrong' }),
    );
  });

  it('accepts code of exactly MAX_CODE_BYTES bytes and refuses one byte more (CODE_TOO_LARGE)', () => {
    const padded = (bytes: number) => {
      const body = 'return "default"\n//';
      return body + 'é'.repeat(Math.floor((bytes - body.length) / 2)) + 'x'.repeat((bytes - body.length) % 2);
    };
    expect(Buffer.byteLength(padded(MAX_CODE_BYTES))).toBe(MAX_CODE_BYTES);
    expect(rules.check!(script({ code: padded(MAX_CODE_BYTES) }))).toEqual([]);
    expect(rules.check!(script({ code: padded(MAX_CODE_BYTES + 1) })).map((p) => p.code)).toEqual(['CODE_TOO_LARGE']);
  });

  it('when normalized, then the name is trimmed, codeHash is the SHA-256 hex of the code and routeKeys are the ones it returns', () => {
    const stored = rules.normalize!(script({ logicScriptName: '  Geo split ', codeHash: 'forged', routeKeys: ['forged'] }), null);
    expect(stored.logicScriptName).toBe('Geo split');
    expect(stored.codeHash).toBe(createHash('sha256').update(ROUTING).digest('hex'));
    expect(stored.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.routeKeys).toEqual(['us', 'default']);
  });
});
