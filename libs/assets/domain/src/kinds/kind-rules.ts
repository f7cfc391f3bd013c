import { ErrorCodes, ServiceError } from '@funnel/contracts';
import type { AssetRecord } from '../asset-events';

/** One problem with a request, in the shape of every validation error's `details`. */
export interface FieldProblem {
  /** Path of the field, e.g. `pages[2].idPage`. */
  field: string;
  /** What rule it breaks, e.g. `pattern`, `unique`, `notAllowed`. */
  code: string;
  message: string;
  /** Where in a text field the problem is (1-based): a logic script's diagnostics. */
  line?: number;
  column?: number;
}

/** A field of a record that names another asset, to be checked: it exists in the caller's account, is not deleted, and has `where`'s values. */
export interface AssetReference {
  /** Path of the field, e.g. `offerParams.idOfferSource`. */
  field: string;
  /** How a problem's message names the field (default `field`): a funnel's adds the node, `nodes[7].… (node <id>)`. */
  label?: string;
  kind: string;
  id: string;
  /** Fields the referenced record must hold these values in, e.g. `{ pageType: 'offer' }`. */
  where?: Readonly<Record<string, unknown>>;
  /** The scopes the referenced record may be in (see ReferenceScope). */
  scope?: ReferenceScope;
}

/**
 * Where a referenced record may belong: its `field`, read as "" when absent, must hold one of
 * `allowed`. A funnel names page groups and conditions that are global or local to itself:
 * `{ field: 'restrictToFunnelId', allowed: ['', idFunnel] }`.
 */
export interface ReferenceScope {
  field: string;
  allowed: readonly string[];
}

/** Whether a referenced record is in the reference's scope (always, for a reference without one). */
export function isInReferenceScope(reference: AssetReference, target: Readonly<Record<string, unknown>>): boolean {
  if (!reference.scope) return true;
  const value = target[reference.scope.field] ?? '';
  return typeof value === 'string' && reference.scope.allowed.includes(value);
}

/**
 * A kind's own rules, beyond what its DTO checks: pure functions of the record. The generic
 * pipeline calls them for every kind (a kind without rules of its own has none).
 */
export interface KindRules {
  /** Problems with a record that passed its DTO: cross-field and shape rules. */
  check?(record: AssetRecord): FieldProblem[];
  /**
   * The error code of the 400 that check's problems give (default `REQUEST.VALIDATION_FAILED`):
   * a kind whose check is one validator of its own names it (a logic script's `SCRIPT.INVALID`).
   */
  checkCode?: string;
  /**
   * The error code of the 400 that reference problems give (default `ASSET.INVALID_REFERENCE`): a
   * funnel's bad references are part of its `FUNNEL.INVALID`.
   */
  referenceCode?: string;
  /** The record as stored: fields the service sets, given the current record on update (null on create). */
  normalize?(record: AssetRecord, current: AssetRecord | null): AssetRecord;
  /** The fields that name other assets. */
  references?(record: AssetRecord): AssetReference[];
  /**
   * What a checked record should have but need not (drafts are normal): the warnings of the kind's
   * `validate` route (a funnel's). `read` gives the live records of one kind among `ids` in the
   * caller's account (missing ones are left out).
   */
  warnings?(record: AssetRecord, read: AssetReader): Promise<FieldProblem[]>;
  /**
   * A duplicate's record made the copy's own: new ids inside it (a funnel's nodes and connections)
   * and the ids of the copied local assets (`idMap`: source asset id to its copy's) put in.
   */
  remapDuplicate?(copy: AssetRecord, idMap: ReadonlyMap<string, string>): AssetRecord;
  /** Fields of the slim record computed from the full one (a page group's pageCount). */
  slim?(record: AssetRecord): Record<string, unknown>;
  /**
   * A dry run of the kind's own logic (a condition's routing) on a checked record, for an input
   * (the request body without the record): what it would answer. Throws a 400 for a bad input.
   */
  evaluate?(record: AssetRecord, input: Record<string, unknown>): unknown;
}

/** Reads the live records of one kind among `ids`, in the caller's account. */
export type AssetReader = (kind: string, ids: readonly string[]) => Promise<AssetRecord[]>;

/** Runs a kind's check on a record: a 400 with the problems as details (code: the kind's checkCode, else REQUEST.VALIDATION_FAILED). */
export function assertKindRules(kind: string, rules: KindRules, record: AssetRecord): void {
  const problems = rules.check?.(record) ?? [];
  if (problems.length) throw ServiceError.badRequest(rules.checkCode ?? ErrorCodes.VALIDATION, `invalid ${kind}: ${problems[0].message}`, problems);
}
