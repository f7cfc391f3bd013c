// The routing-script (logic script) language: Go statements that pick a route key for a visitor.
//
//   validate(code)            -> { valid, routeKeys, errors, warnings }   never throws
//   compile(code)             -> { ok: true, script } | { ok: false, result }
//   evaluate(script, context) -> { routeKey, fallback, reason, reasonCode } never throws
//   evaluateCode(code, input) -> dry run from a JSON-shaped input; validateDryRunInput(input) -> problems
//   languageCatalog           -> variables, helpers, operators, rules and templates as plain JSON
export { validate } from './validate';
export type { ValidationResult } from './validate';
export { compile, evaluate, CompiledScript } from './evaluator';
export type { CompileResult, EvaluationContext, EvaluationResult, EvaluationReasonCode } from './evaluator';
export type { VisitorAttributes } from '@funnel/visitor-context';
export { MAX_CODE_BYTES, ROUTE_KEY_PATTERN, FIELD_NAME_PATTERN, FALLBACK_ROUTE_KEY } from './rules';
export { DIAGNOSTIC_CODES } from './diagnostics';
export type { Diagnostic, DiagnosticCode } from './diagnostics';
export { languageCatalog } from './catalog';
export type { LanguageCatalog, CatalogVariable, CatalogHelper, CatalogOperator, CatalogTemplate } from './catalog';
export { evaluateCode, dryRunProblems, validateDryRunInput, parseIsoDateTime, DRY_RUN_LIMITS } from './dry-run';
export type { DryRunProblem } from './dry-run';
export type { DryRunInput, DryRunResult, DryRunOptions } from './dry-run';
