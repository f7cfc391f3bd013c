import { Inject, Injectable } from '@nestjs/common';
import { AssetKindDescriptor, AssetRequestBody, CallerContext, ErrorCodes, ServiceError, validateBody } from '@funnel/contracts';
import { AssetRecord, AssetRegistry, FieldProblem, SecretCipher, applySecretWrites } from '@funnel/assets-domain';
import { ASSET_REGISTRY, SECRET_CIPHER } from '../assets.tokens';
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
    @Inject(SECRET_CIPHER) private readonly secrets: SecretCipher,
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
    const { errors, warnings } = await this.check(kind, context, body);
    return { valid: errors.length === 0, errors, warnings };
  }

  /**
   * An unsaved record checked as validate/ checks it, for a kind action that then uses it (the funnel
   * simulator): its problems with the code save's 400 would carry, and when it has none the record as
   * save would store it (defaults applied, normalized, secrets encrypted; a secret left out or sent as
   * `********` keeps the stored record's of the same id, when there is one).
   */
  async checked(
    kind: AssetKindDescriptor,
    context: CallerContext,
    body: unknown,
  ): Promise<{ errors: FieldProblem[]; code: string; record: AssetRecord | null }> {
    const { errors, record, code } = await this.check(kind, context, body);
    if (errors.length || !record) return { errors, code, record: null };
    const [stored] = await this.queries.currentMany(kind.kind, context.accountId, [String(record[kind.idField])]);
    return { errors, code, record: applySecretWrites(record, kind.secretFields ?? [], stored ?? null, this.secrets) };
  }

  private async check(
    kind: AssetKindDescriptor,
    context: CallerContext,
    body: unknown,
  ): Promise<{ errors: FieldProblem[]; warnings: FieldProblem[]; record: AssetRecord | null; code: string }> {
    const rules = this.registry.rules(kind.kind);
    if (!rules.warnings) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `${kind.kind} has no validate`);
    let record: AssetRecord;
    try {
      record = this.checks.toRecord(kind, validateBody(kind.recordDto, withWriteAliases(kind, body)), null);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status !== 400) throw error;
      return { errors: problemsOf(error), warnings: [], record: null, code: error.code };
    }
    const checked = rules.check?.(record) ?? [];
    if (rules.normalize && !checked.length) record = rules.normalize(record, null);
    const errors = [...checked, ...(await this.checks.referenceProblems(kind, context, record))];
    const warnings = checked.length ? [] : await rules.warnings(record, (of, ids) => this.queries.currentMany(of, context.accountId, ids));
    return { errors, warnings, record, code: rules.checkCode ?? rules.referenceCode ?? ErrorCodes.VALIDATION };
  }
}

/** A 400's details (or one problem from its message). */
function problemsOf(error: ServiceError): FieldProblem[] {
  return error.details.length ? (error.details as FieldProblem[]) : [{ field: '', code: error.code, message: error.message }];
}
