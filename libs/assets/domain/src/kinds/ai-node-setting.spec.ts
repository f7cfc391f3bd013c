import type { AssetRecord } from '../asset-events';
import { KIND_RULES } from './index';

const setting = (fields: Record<string, unknown> = {}) =>
  ({ idAINodeSetting: 'AAAAAAAAAAAA', funnelId: 'BBBBBBBBBBBB', status: 'active', ...fields }) as AssetRecord;
const codesOf = (problems: { field: string; code: string }[]) => problems.map((p) => `${p.field}:${p.code}`);

describe('AI node setting rules', () => {
  const rules = KIND_RULES.ainodesetting;

  it('given no calculationParams, or minimumPercentagePerVariant with other numbers, then nothing is wrong', () => {
    expect(rules.check!(setting())).toEqual([]);
    expect(rules.check!(setting({ calculationParams: { minimumPercentagePerVariant: 0 } }))).toEqual([]);
    expect(rules.check!(setting({ calculationParams: { minimumPercentagePerVariant: 100, explorationRate: 0.15, minViews: 200 } }))).toEqual([]);
  });

  it.each([
    [{ minimumPercentagePerVariant: -1 }, ['calculationParams.minimumPercentagePerVariant:range']],
    [{ minimumPercentagePerVariant: 100.5 }, ['calculationParams.minimumPercentagePerVariant:range']],
    [{ minimumPercentagePerVariant: '5' }, ['calculationParams.minimumPercentagePerVariant:isNumber']],
    [{ explorationRate: 0.1 }, ['calculationParams.minimumPercentagePerVariant:required']],
    [{ minimumPercentagePerVariant: 5, weights: [1, 2] }, ['calculationParams.weights:isNumber']],
    [{ minimumPercentagePerVariant: 5, note: 'x' }, ['calculationParams.note:isNumber']],
    [{ minimumPercentagePerVariant: 5, 'bad name': 1 }, ['calculationParams:pattern']],
  ])('given %j, then the problems are %j', (calculationParams, expected) => {
    expect(codesOf(rules.check!(setting({ calculationParams })))).toEqual(expected);
  });

  it('allows 20 parameters and refuses 21', () => {
    const params = (count: number) => ({ minimumPercentagePerVariant: 10, ...Object.fromEntries(Array.from({ length: count - 1 }, (_, i) => [`p${i}`, i])) });
    expect(rules.check!(setting({ calculationParams: params(20) }))).toEqual([]);
    expect(codesOf(rules.check!(setting({ calculationParams: params(21) })))).toEqual(['calculationParams:maxKeys']);
  });

  it('when normalized, then idCategory defaults to "" and an update that leaves it out keeps the current one', () => {
    expect(rules.normalize!(setting(), null).idCategory).toBe('');
    const current = setting({ idCategory: 'CCCCCCCCCCCC' });
    expect(rules.normalize!(setting(), current).idCategory).toBe('CCCCCCCCCCCC');
    expect(rules.normalize!(setting({ idCategory: '' }), current).idCategory).toBe('');
  });
});
