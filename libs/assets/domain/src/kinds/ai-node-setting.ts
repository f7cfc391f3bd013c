import type { FieldProblem, KindRules } from './kind-rules';

/** At most this many calculation parameters, minimumPercentagePerVariant included. */
export const AI_CALCULATION_PARAMS_MAX = 20;
/** A parameter's name: a letter, then letters, digits and `_`, at most 64 in all. */
export const AI_CALCULATION_PARAM_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
export const MINIMUM_PERCENTAGE_PER_VARIANT = 'minimumPercentagePerVariant';

/** Problems with an AI node setting's calculationParams: numbers under plain names, minimumPercentagePerVariant among them (0..100). */
export function calculationParamsProblems(params: Record<string, unknown>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const entries = Object.entries(params);
  if (entries.length > AI_CALCULATION_PARAMS_MAX) {
    problems.push({ field: 'calculationParams', code: 'maxKeys', message: `calculationParams may hold at most ${AI_CALCULATION_PARAMS_MAX} parameters` });
  }
  for (const [name, value] of entries) {
    const field = `calculationParams.${name}`;
    if (!AI_CALCULATION_PARAM_NAME.test(name)) {
      problems.push({ field: 'calculationParams', code: 'pattern', message: `calculationParams names must match ${AI_CALCULATION_PARAM_NAME}` });
    } else if (typeof value !== 'number' || !Number.isFinite(value)) {
      problems.push({ field, code: 'isNumber', message: `${field} must be a number` });
    }
  }
  const minimum = params[MINIMUM_PERCENTAGE_PER_VARIANT];
  const field = `calculationParams.${MINIMUM_PERCENTAGE_PER_VARIANT}`;
  if (minimum === undefined) problems.push({ field, code: 'required', message: `${field} is required` });
  else if (typeof minimum === 'number' && (minimum < 0 || minimum > 100)) {
    problems.push({ field, code: 'range', message: `${field} must be between 0 and 100` });
  }
  return problems;
}

/**
 * AI node settings: calculationParams, when given, hold numbers only (minimumPercentagePerVariant
 * 0..100, other names free, at most 20). Not category-managed: idCategory is kept as given, and an
 * update that leaves it out keeps the current one.
 */
export const aiNodeSettingRules: KindRules = {
  check: (record) => (record.calculationParams === undefined ? [] : calculationParamsProblems(record.calculationParams as Record<string, unknown>)),
  normalize: (record, current) => ({ ...record, idCategory: record.idCategory ?? current?.idCategory ?? '' }),
};
