import { CallerContext, ErrorCodes, ID_RULE, LOGIC_SCRIPT_KIND, ServiceError, assetSubject, isValidAssetId } from '@funnel/contracts';
import { type ServiceClient, requestAssetRecord } from '@funnel/platform';

/** The one assets subject scripts-service calls (its NATS permissions allow no other). */
export const LOGIC_SCRIPT_FIND_BY_ID = assetSubject(LOGIC_SCRIPT_KIND.kind, 'findById');

/**
 * Saved logic scripts, read from assets-service with the caller's context: only the caller's
 * account's live scripts are found (another account's, or a deleted one, is a 404 there).
 */
export class StoredLogicScripts {
  constructor(private readonly assets: ServiceClient) {}

  /** The code of saved script `id`; a 400 for a malformed id, the asset service's 404 when there is none. */
  async codeOf(context: CallerContext, id: unknown): Promise<string> {
    const idField = LOGIC_SCRIPT_KIND.idField;
    if (typeof id !== 'string' || !isValidAssetId(id)) {
      throw ServiceError.invalidField(idField, 'isAssetId', `${idField} must be a valid id (${ID_RULE})`, ErrorCodes.INVALID_ID);
    }
    const code = (await requestAssetRecord<{ code?: unknown } | undefined>(this.assets, LOGIC_SCRIPT_KIND, context, id))?.code;
    if (typeof code !== 'string') throw new Error(`${LOGIC_SCRIPT_FIND_BY_ID} answered without code`);
    return code;
  }
}
