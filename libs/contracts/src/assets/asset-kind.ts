import { StatusFilter } from './requests';

/** The operations the asset pipeline offers; each kind lists the ones its API has. */
export const ASSET_OPERATIONS = [
  'list',
  'findById',
  'findByIds',
  'findByStatus',
  'findByCategory',
  'create',
  'update',
  'duplicate',
  'delete',
  'archive',
  'unarchive',
  'moveCategory',
  'findByType',
  'evaluate',
  'findByName',
  'findBySlug',
  'secret',
  'rotateSecret',
  'test',
  'move',
  'validate',
  'history',
  'simulate',
] as const;
export type AssetOperation = (typeof ASSET_OPERATIONS)[number];

/** The spec's common pattern of operations, which every category-managed family offers. */
export const COMMON_ASSET_OPERATIONS: readonly AssetOperation[] = [
  'list',
  'findById',
  'findByIds',
  'findByStatus',
  'findByCategory',
  'create',
  'update',
  'duplicate',
  'delete',
  'archive',
  'unarchive',
  'moveCategory',
];

/** HTTP method and path (under a kind's prefix) of each operation. */
export const ASSET_OPERATION_ROUTES: Record<AssetOperation, { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string }> = {
  list: { method: 'GET', path: 'list' },
  findById: { method: 'GET', path: 'find/byId' },
  findByIds: { method: 'GET', path: 'find/byIds' },
  findByStatus: { method: 'GET', path: 'find/byStatus' },
  findByCategory: { method: 'GET', path: 'find/byCategory' },
  create: { method: 'POST', path: 'save' },
  update: { method: 'PUT', path: 'save' },
  duplicate: { method: 'POST', path: 'duplicate' },
  delete: { method: 'DELETE', path: 'delete' },
  archive: { method: 'PUT', path: 'archive' },
  unarchive: { method: 'PUT', path: 'unarchive' },
  moveCategory: { method: 'PUT', path: 'move-category' },
  findByType: { method: 'GET', path: 'find/byType' },
  /** A dry run on the kind's own rules (conditions); reads only, so it needs assets:read. */
  evaluate: { method: 'POST', path: 'evaluate' },
  findByName: { method: 'GET', path: 'find/byName' },
  findBySlug: { method: 'GET', path: 'find/bySlug' },
  /** A kind's signing secret in clear (webhook configs): only for those who may change the kind. */
  secret: { method: 'GET', path: 'secret' },
  rotateSecret: { method: 'POST', path: 'secret/rotate' },
  /** A test delivery to the asset's destination (webhook configs). */
  test: { method: 'POST', path: 'test' },
  /** Moves assets to another parent record (a funnel to another funnel group): `{ entries, <parent.field> }`. */
  move: { method: 'PUT', path: 'move' },
  /** Checks a record as save would, and more, without storing it: `{ valid, errors, warnings }` (funnels). */
  validate: { method: 'POST', path: 'validate' },
  /** The asset's events, newest first, each with the changes it made (see AssetHistoryEntry). */
  history: { method: 'GET', path: 'history' },
  /** A dry run of the asset for a visitor (a funnel walked step by step); reads only, so it needs assets:read. */
  simulate: { method: 'POST', path: 'simulate' },
};

/** Operations every kind (and every view of a kind) serves, whatever its descriptor lists. */
export const EVERY_KIND_OPERATIONS: readonly AssetOperation[] = ['history'];

/** The operations served for a kind or one of its views: its own list plus EVERY_KIND_OPERATIONS. */
export function servedOperations(served: { operations: readonly AssetOperation[] }): AssetOperation[] {
  return [...served.operations, ...EVERY_KIND_OPERATIONS.filter((operation) => !served.operations.includes(operation))];
}

/**
 * Writes that honour `If-Match: W/"<revision>"` (optimistic concurrency): they fail with 412
 * `ASSET.REVISION_MISMATCH` when the asset's stream has moved on. A bulk one takes it with one entry only.
 */
export const CONDITIONAL_OPERATIONS: ReadonlySet<AssetOperation> = new Set(['update', 'delete', 'archive', 'unarchive', 'moveCategory', 'move']);

/** The most a paged list answers at once (`limit`). */
export const MAX_PAGE_SIZE = 1000;

/**
 * Lists and finds that take `limit` (1..MAX_PAGE_SIZE) and `cursor` (an earlier answer's `X-Next-Cursor`),
 * answer in id order, and carry `X-Next-Cursor` when a next page exists (find/byName and find/bySlug
 * when the lookup answers a list). `history` pages by `limit` (1..200, default 50) and `beforeRevision`.
 */
export const PAGED_OPERATIONS: ReadonlySet<AssetOperation> = new Set([
  'list',
  'findByStatus',
  'findByType',
  'findByCategory',
  'findByIds',
  'findByName',
  'findBySlug',
]);

/**
 * Request-body fields of an operation whose object holds fields of the kind's record (a duplicate's
 * `bodyUpdates`): a field-renaming view renames inside them too.
 */
export const RECORD_FIELDS_IN_REQUEST: Partial<Record<AssetOperation, readonly string[]>> = { duplicate: ['bodyUpdates'] };

/**
 * Operations whose answer lists changes to the kind's record (`[{ changes: [{ path }] }]`, history):
 * a field-renaming view renames each path's first segment (`funnelGroupName` is `campaignName` under
 * `/campaign/`) rather than the answer's own fields.
 */
export const RECORD_CHANGES_IN_ANSWER: ReadonlySet<AssetOperation> = new Set(['history']);

/** Operations that change nothing, whatever their HTTP method: they need `assets:read`. */
export const READ_OPERATIONS: ReadonlySet<AssetOperation> = new Set([
  'list',
  'findById',
  'findByIds',
  'findByStatus',
  'findByCategory',
  'findByType',
  'evaluate',
  'findByName',
  'findBySlug',
  'validate',
  'history',
  'simulate',
]);

/** A lookup by one field's exact value among non-deleted assets: all matches, or the one match (404 when none). */
export interface FieldLookup {
  param: string;
  field: string;
  single?: boolean;
}

/** A query parameter that narrows list / find/byStatus results to documents whose field equals it. */
export interface QueryFilter {
  param: string;
  /** Field of the record it compares with. */
  field: string;
  required: boolean;
  /** Allowed values, when the parameter is an enum. */
  allowed?: readonly string[];
  /** The field value each parameter value stands for, when they differ (a page group's categoryType `landerGroup` is pageType `lander`). */
  values?: Readonly<Record<string, string>>;
}

/** A kind whose category type is the value of one of its fields (a page's `pageType`). */
export interface CategoryTypeFromField {
  field: string;
  /** Category type by field value, e.g. `{ lander: 'landerGroup', offer: 'offerGroup' }`. */
  types: Readonly<Record<string, string>>;
}

/**
 * Everything the generic pipeline needs to know about one asset kind: the gateway builds its routes
 * from it, the service validates with its DTO, the domain names its events and streams after it.
 */
export interface AssetKindDescriptor {
  /** Subject resource and stream category, e.g. `visitortag` (subjects `assets.visitortag.<operation>`). */
  kind: string;
  /** Prefix of stored event type names, e.g. `VisitorTag` (VisitorTagCreated, VisitorTagArchived ...). */
  eventPrefix: string;
  /** Id field of the record, also the single-id query parameter (e.g. `idTag`). */
  idField: string;
  /** Multi-id query parameter of find/byIds (comma-separated ids). */
  idsParam: string;
  /** Name field (length 1..256), used by duplicate. */
  nameField: string;
  /** class-validator DTO of the full record (create and update). */
  recordDto: new () => object;
  /** HTTP path prefixes under /v1 (current name first, legacy aliases after). */
  paths: string[];
  operations: AssetOperation[];
  /** The category type that manages this kind; absent when the kind is not category-managed. */
  categoryType?: string;
  /** list: whether `status` is required, and what applies when it is not. */
  list: { statusRequired: boolean; defaultStatus: StatusFilter; filters: QueryFilter[] };
  /** Extra filters accepted by find/byStatus. */
  findByStatusFilters: QueryFilter[];
  /** Delete and archive take a ParentMutationRequest (children cascade) instead of a StringList. */
  isParent: boolean;
  /**
   * A parent that is a category of some type: the field of its record naming that type (a category's
   * `categoryType`). Its children are the assets of the kinds that type manages, held in `idCategory`;
   * a move target must have the same type.
   */
  categoryTypeField?: string;
  /** Fields shown on reads but derived by the service (e.g. a tag's categoryName); ignored on writes. */
  derivedFields?: string[];
  /** Fields an update may not change (e.g. a category's categoryType). */
  immutableFields?: string[];
  /** The category type, when it depends on a field of the record (instead of `categoryType`). */
  categoryTypeFrom?: CategoryTypeFromField;
  /**
   * list and find/byStatus answer slim records: these fields of the record, plus the id, `status`,
   * `idCategory` and `categoryName` (when category-managed) and the kind's computed slim fields.
   * Absent: full records everywhere (visitor tags).
   */
  slimFields?: string[];
  /**
   * The funnel-local scope field (`restrictToFunnelId`): absent or "" is global. A local asset is not
   * category-managed (its idCategory stays ""), the field cannot change on update, and list accepts
   * `idFunnel` (only that funnel's assets) and `globalOnly=true` (only global ones).
   */
  scopeField?: string;
  /** find/byType's parameter (required there); `findByStatusFilters` and `findByCategoryFilters` may name it too. */
  typeFilter?: QueryFilter;
  /** Extra filters accepted by find/byCategory. */
  findByCategoryFilters?: QueryFilter[];
  /** find/byName and find/bySlug: which field each looks up. */
  lookups?: Partial<Record<'findByName' | 'findBySlug', FieldLookup>>;
  /**
   * Save creates or updates (both POST and PUT): an existing id is updated, a new one created, and a
   * record without an id gets one from the service, answered as `{ <idField> }` (AI node settings).
   */
  upsert?: boolean;
  /** Fields a duplicate's bodyUpdates may set; others are ignored (absent: any field). */
  duplicateUpdatableFields?: string[];
  /** Write-only secrets (see SecretField). */
  secretFields?: SecretField[];
  /** Values unique among the account's live assets of the kind (see UniqueField). */
  uniqueFields?: UniqueField[];
  /** Save (POST and PUT) answers the saved record, as find/byId shows it (funnel groups); absent: no body. */
  saveAnswersRecord?: boolean;
  /** Other names a write may give a field (`{ idCampaign: 'idFunnelGroup' }`): used when the field itself is left out. */
  writeAliases?: Readonly<Record<string, string>>;
  /** Fields of slim records joined from another record by id (a funnel's funnelGroupName), read at query time. */
  slimJoins?: SlimJoin[];
  /** Slim records list the slim records of their live children (a funnel group's `funnels`), read with one query. */
  slimChildren?: SlimChildren;
  /**
   * The record of another kind that holds this one, named by one of its fields (a funnel's
   * `idFunnelGroup`): it must be live (a reference), find/byCategory takes that field as its
   * parameter, `move` moves entries to another parent, and a parent's ParentMutationRequest applies to them.
   */
  parent?: ParentField;
  /**
   * Kinds whose assets may be local to a record of this kind (their `scopeField` names it: a funnel's
   * page groups and conditions). Delete and archive take them along (completed after a crash, like a
   * parent's cascade); a duplicate copies them and points the copy at its copies.
   */
  localKinds?: string[];
  /** The same records under other paths and field names (funnel groups as the legacy campaigns). */
  views?: AssetKindView[];
  /** Fields renamed since events were first stored (old name to current name): stored events are read with the current names. */
  renamedFields?: Readonly<Record<string, string>>;
  /** What the API document (GET /v1/openapi.json) says of the kind beyond its DTO and the fields above. */
  docs?: AssetKindDocs;
}

/** A JSON Schema (2020-12, as OpenAPI 3.1 has it). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * The parts of a kind's API document that no DTO or descriptor field gives: declared once here,
 * next to the kind, and read by the gateway's document generator.
 */
export interface AssetKindDocs {
  /** Record fields the service sets (not in the DTO), e.g. a logic script's `codeHash`: on full records, and on slim ones when `slimFields` names them. */
  fields?: Readonly<Record<string, JsonSchema>>;
  /** Fields the kind's rules compute for slim records (KindRules.slim), e.g. a page group's `pageCount`. */
  slim?: Readonly<Record<string, JsonSchema>>;
  /** Named schemas the kind's DTO fields refer to (`$ref` SCHEMA_REF_PREFIX + name), e.g. a funnel's node types. */
  schemas?: Readonly<Record<string, JsonSchema>>;
  /**
   * Body and answer of the kind's own operations (evaluate, secret, test ...): a schema, or for a body the
   * class-validator DTO the service validates it with; with a worked example of each when given.
   */
  operations?: Partial<
    Record<
      AssetOperation,
      { summary?: string; description?: string; body?: JsonSchema | (new () => object); answer?: JsonSchema; bodyExample?: unknown; answerExample?: unknown }
    >
  >;
}

/** A slim field copied from the record another field names: `as` = the `take` field of the `kind` record whose id is `field`. */
export interface SlimJoin {
  field: string;
  kind: string;
  take: string;
  as: string;
}

/** Child records shown in a parent's slim record: the slim records of the non-deleted `kind` assets whose `field` is the parent's id, as `as`. */
export interface SlimChildren {
  kind: string;
  field: string;
  as: string;
}

/** The parent of a kind's records: the `kind` record whose id is in `field`. */
export interface ParentField {
  kind: string;
  field: string;
}

/**
 * A field-renaming view of a kind: the same records and operations under other path prefixes, with
 * some fields named otherwise on requests (query and body, top-level fields) and answers (the
 * record's or each listed record's top-level fields). The gateway does the renaming; the service
 * only ever sees the kind's own names.
 */
export interface AssetKindView {
  /** Path prefixes of the view, e.g. `/campaign`. */
  paths: string[];
  /** The kind's field name to the view's, e.g. `{ idFunnelGroup: 'idCampaign' }` (query parameters included). */
  fieldNames: Readonly<Record<string, string>>;
  /** The operations served under the view's paths. */
  operations: AssetOperation[];
  /** Operations under the view whose answer is dropped (the legacy save answers no body). */
  noAnswer?: AssetOperation[];
  /** Operations of the kind's own paths that answer with the view's names (`/funnelgroup/find/byStatus/` answers CampaignInfo). */
  answersOnOwnPaths?: AssetOperation[];
}

/** A write-only field: accepted on writes, stored encrypted, answered as `********` plus a flag. */
export interface SecretField {
  /**
   * Path of the secret in the record, e.g. `destination.basicAuth.password`; one `[]` names every
   * item of a list (`nodes[].nodeMiddlewareRefParams.destinationOverrides.hmacSecret`).
   */
  path: string;
  /** Top-level boolean on reads: whether one is stored, e.g. `hasBasicAuthPassword` (none for a secret in list items: its placeholder shows it). */
  flag?: string;
  /** For a secret in list items: the item field that identifies an item across saves (`idNode`), so a kept secret is the same item's. */
  itemKey?: string;
  /** Not even the placeholder is shown (a webhook's signing secret has routes of its own). */
  hidden?: boolean;
}

/** A field whose value is unique among an account's live assets of the kind (claimed in its own stream). */
export interface UniqueField {
  field: string;
  /** The 409's code, e.g. `SHORTLINK.SLUG_TAKEN`. */
  code: string;
  /** The field's longest value: a duplicate's generated value (`<value>-<5 random>`) is cut to fit it. */
  maxLength?: number;
}

/** Every category type that manages a kind: its fixed one, or each one its type field can give. */
export function categoryTypesOf(kind: AssetKindDescriptor): string[] {
  if (kind.categoryTypeFrom) return [...new Set(Object.values(kind.categoryTypeFrom.types))];
  return kind.categoryType ? [kind.categoryType] : [];
}

/** The category type that manages this record (undefined: not category-managed, or a local asset). */
export function categoryTypeOfRecord(kind: AssetKindDescriptor, record: Record<string, unknown>): string | undefined {
  if (kind.scopeField && isLocal(kind, record)) return undefined;
  if (kind.categoryTypeFrom) return kind.categoryTypeFrom.types[String(record[kind.categoryTypeFrom.field])];
  return kind.categoryType;
}

/** True when the record is local to a funnel (its scope field names one). */
export function isLocal(kind: AssetKindDescriptor, record: Record<string, unknown>): boolean {
  const scope = kind.scopeField ? record[kind.scopeField] : undefined;
  return typeof scope === 'string' && scope !== '';
}

export function assetSubject(kind: string, operation: AssetOperation): string {
  return `assets.${kind}.${operation}`;
}

/** What the gateway forwards for an asset route: the raw query parameters and JSON body. */
export interface AssetRequestBody {
  query: Record<string, string | string[] | undefined>;
  body: unknown;
  /** Forwarded request headers (lower-case names): `if-match` on CONDITIONAL_OPERATIONS. */
  headers?: Record<string, string>;
}

/**
 * What an asset subject answers: `{ result }` (absent: no body), and what the gateway turns into
 * headers, leaving the body as it is: `revision` (find/byId) as `ETag: W/"<revision>"`, `nextCursor`
 * (a paged list) as `X-Next-Cursor`.
 */
export interface AssetReply {
  result?: unknown;
  revision?: number;
  nextCursor?: string;
}

/** One change an event made to a record: the JSON path (`nodes[3].nodeName`) and its values (`null`: absent; secrets: `********`). */
export interface AssetChange {
  path: string;
  from: unknown;
  to: unknown;
}

/** One event of an asset's history (`GET <prefix>/history/`). */
export interface AssetHistoryEntry {
  revision: number;
  /** The stored event type, e.g. `FunnelUpdated`. */
  type: string;
  occurredAt: string;
  /** Who wrote it (null for events stored before the actor was recorded). */
  actor: { userId: string | null; keyId: string | null };
  changes: AssetChange[];
}
