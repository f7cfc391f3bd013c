import { Inject, Injectable } from '@nestjs/common';
import { AssetKindDescriptor, AssetRequestBody, CallerContext, ErrorCodes, ServiceError, validateBody } from '@funnel/contracts';
import { AssetRecord, AssetRegistry, FieldProblem } from '@funnel/assets-domain';
import { ASSET_REGISTRY } from '../assets.tokens';
import { AssetQueries } from '../asset-queries';
import { RecordChecks } from './record-checks';
import { withWriteAliases } from './request-parts';

/** POST validate/: a record checked as save would check it, without storing it. */
@Injectable()
export class ValidateCommand {
  constructor(
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
    private readonly queries: AssetQueries,
    private readonly checks: RecordChecks,
  ) {}

  /**
   * POST validate/: a record checked as save would check it, and more, without storing it:
   * `{ valid, errors, warnings }`. `errors` are save's 400 details (the DTO's; else the kind's
   * check and references together); `warnings` are the kind's (KindRules.warnings) for a record
   * without errors of shape. Reads only.
   */
  async validate(
    kind: AssetKindDescriptor,
    context: CallerContext,
    { body }: AssetRequestBody,
  ): Promise<{ valid: boolean; errors: FieldProblem[]; warnings: FieldProblem[] }> {
    const rules = this.registry.rules(kind.kind);
    if (!rules.warnings) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `${kind.kind} has no validate`);
    let record: AssetRecord;
    try {
      record = this.checks.toRecord(kind, validateBody(kind.recordDto, withWriteAliases(kind, body)), null);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status !== 400) throw error;
      return { valid: false, errors: problemsOf(error), warnings: [] };
    }
    const checked = rules.check?.(record) ?? [];
    if (rules.normalize && !checked.length) record = rules.normalize(record, null);
    const errors = [...checked, ...(await this.checks.referenceProblems(kind, context, record))];
    const warnings = checked.length ? [] : await rules.warnings(record, (of, ids) => this.queries.currentMany(of, context.accountId, ids));
    return { valid: errors.length === 0, errors, warnings };
  }
}

/** A 400's details (or one problem from its message). */
function problemsOf(error: ServiceError): FieldProblem[] {
  return error.details.length ? (error.details as FieldProblem[]) : [{ field: '', code: error.code, message: error.message }];
}
