// The dry run behind the service's "try this script" endpoint: one call that validates the input (the
// visitor-context model shared with conditions), compiles and evaluates.
import { DryRunInput, dryRunInstant, validateDryRunInput } from '@funnel/visitor-context';
import { compile, evaluate, EvaluationResult } from './evaluator';
import { FALLBACK_ROUTE_KEY } from './rules';
import type { ValidationResult } from './validate';

export { DRY_RUN_LIMITS, dryRunProblems, parseIsoDateTime, validateDryRunInput } from '@funnel/visitor-context';
export type { DryRunProblem } from '@funnel/visitor-context';
export type { DryRunInput } from '@funnel/visitor-context';

export type DryRunResult = EvaluationResult & ValidationResult;

export interface DryRunOptions {
  /** The instant to use when the input has no time (defaults to the system clock). */
  now?: Date;
}

/**
 * Validates the script and the input, then evaluates. Never throws: an invalid script or input yields
 * the fallback key with the reason, alongside the script's validation result.
 */
export function evaluateCode(code: string, input: DryRunInput, options: DryRunOptions = {}): DryRunResult {
  const compiled = compile(code);
  const validation: ValidationResult = compiled.ok
    ? { valid: true, routeKeys: [...compiled.script.routeKeys], errors: [], warnings: [...compiled.script.warnings] }
    : compiled.result;
  const problems = validateDryRunInput(input);
  if (problems.length > 0) {
    return {
      ...validation,
      routeKey: FALLBACK_ROUTE_KEY,
      fallback: true,
      reason: `invalid dry-run input: ${problems.join('; ')}`,
      reasonCode: 'INVALID_CONTEXT',
    };
  }
  if (!compiled.ok) {
    const first = validation.errors[0];
    const reason = `the script is invalid: ${first ? `line ${first.line}, column ${first.column}: ${first.message}` : 'unknown error'}`;
    return { ...validation, routeKey: FALLBACK_ROUTE_KEY, fallback: true, reason, reasonCode: 'INVALID_SCRIPT' };
  }
  const now = dryRunInstant(input, options.now);
  const result = evaluate(compiled.script, {
    visitor: input.visitor,
    trackingFields: input.trackingFields,
    dataBuffer: input.dataBuffer,
    visitorTags: input.visitorTags,
    now,
    routeKeys: input.routeKeys,
  });
  return { ...validation, ...result };
}
