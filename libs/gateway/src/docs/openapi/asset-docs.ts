import {
  AssetKindDescriptor,
  AssetOperation,
  CONDITIONAL_OPERATIONS,
  DuplicateRequestDto,
  MAX_BULK_IDS,
  MAX_PAGE_SIZE,
  PAGED_OPERATIONS,
  MoveCategoryRequestDto,
  ParentMutationRequestDto,
  QueryFilter,
  SECRET_PLACEHOLDER,
  STATUS_FILTERS,
  StringListDto,
  assetKindByName,
  categoryTypesOf,
} from '@funnel/contracts';
import type { FieldRenames } from '../../field-renames';
import { DtoSchemas, SCHEMA_REF_PREFIX, Schema } from './dto-schemas';
import type { QueryParamDoc, RouteDoc } from './route-doc';

/** The records of the asset kinds as schema components: full (find/byId) and slim (list), each per field-renaming view. */
export class AssetRecordSchemas {
  private readonly components = new Map<string, Schema>();

  constructor(private readonly dtos: DtoSchemas) {}

  /** `$ref` to the kind's full record (the DTO's fields, plus owner, secret flags and the fields the service sets). */
  full(kind: AssetKindDescriptor, names?: Readonly<Record<string, string>>): Schema {
    return this.ref(`${nameOf(kind, names)}Record`, () => renamed(this.fullSchema(kind), names));
  }

  /** `$ref` to the kind's slim record (descriptor `slimFields`, computed fields, joins and children); the full record for kinds without one. */
  slim(kind: AssetKindDescriptor, names?: Readonly<Record<string, string>>): Schema {
    if (!kind.slimFields) return this.full(kind, names);
    return this.ref(`${nameOf(kind, names)}Slim`, () => renamed(this.slimSchema(kind), names));
  }

  /** The save body: the record DTO, or its schema with a view's field names. */
  body(kind: AssetKindDescriptor, names?: Readonly<Record<string, string>>): Schema {
    if (!names) return this.dtos.refOf(kind.recordDto);
    return this.ref(`${nameOf(kind, names)}Body`, () => renamed(this.dtos.schemaOf(kind.recordDto), names));
  }

  all(): Record<string, Schema> {
    return Object.fromEntries(this.components);
  }

  private ref(name: string, build: () => Schema): Schema {
    if (!this.components.has(name)) {
      this.components.set(name, {}); // a record that lists its own kind's records refers to itself
      this.components.set(name, build());
    }
    return { $ref: SCHEMA_REF_PREFIX + name };
  }

  private fullSchema(kind: AssetKindDescriptor): Schema {
    const dto = this.dtos.schemaOf(kind.recordDto);
    const properties: Record<string, unknown> = { ...(dto.properties as Record<string, unknown>), ...(kind.docs?.fields ?? {}) };
    for (const field of kind.derivedFields ?? []) properties[field] ??= { type: 'string' };
    properties.owner = { type: 'string', description: 'the account id' };
    for (const secret of kind.secretFields ?? []) {
      if (secret.flag) properties[secret.flag] = { type: 'boolean', description: `whether ${secret.path} is stored` };
      if (!secret.hidden) this.showAsPlaceholder(properties, secret.path.split('.'));
    }
    // Always on reads: status, owner, the secret flags, and a category-managed kind's placement.
    const flags = (kind.secretFields ?? []).flatMap((secret) => (secret.flag ? [secret.flag] : []));
    const placement = categoryTypesOf(kind).length ? ['idCategory', 'categoryName'] : [];
    const required = [...new Set([...((dto.required as string[]) ?? []), 'status', 'owner', ...flags, ...placement])];
    return {
      title: `${kind.eventPrefix} (full record)`,
      type: 'object',
      properties,
      required,
      additionalProperties: false,
    };
  }

  /**
   * A write-only secret reads as the placeholder, whatever the write rules (a length) say: the field
   * at `path` becomes `********`, the objects on the way copied (a `$ref` inlined) so the DTO stays as it is.
   */
  private showAsPlaceholder(properties: Record<string, unknown>, path: string[]): void {
    const [head, ...rest] = path;
    const list = head.endsWith('[]');
    const name = list ? head.slice(0, -2) : head;
    const current = properties[name] as Schema | undefined;
    if (!current) return;
    if (!rest.length) {
      properties[name] = { type: 'string', const: SECRET_PLACEHOLDER, description: 'write-only: `********` when one is stored' };
      return;
    }
    const field = this.dtos.inlined(current);
    const holder = list ? (field.items ? this.dtos.inlined(field.items as Schema) : undefined) : field;
    // A union (a funnel node: one schema per nodeType) keeps its schemas, which take the placeholder as a value.
    if (!holder?.properties) return;
    holder.properties = { ...(holder.properties as Record<string, unknown>) };
    this.showAsPlaceholder(holder.properties as Record<string, unknown>, rest);
    if (list) field.items = holder;
    properties[name] = field;
  }

  private slimSchema(kind: AssetKindDescriptor): Schema {
    const full = this.fullSchema(kind);
    const fullProperties = full.properties as Record<string, unknown>;
    const dtoRequired = new Set(full.required as string[]);
    const fields = [kind.idField, ...(kind.slimFields ?? []), 'status', ...(categoryTypesOf(kind).length ? ['idCategory', 'categoryName'] : [])];
    const properties: Record<string, unknown> = {};
    const required = [kind.idField, 'status', ...(categoryTypesOf(kind).length ? ['idCategory', 'categoryName'] : [])];
    for (const field of fields) {
      properties[field] = fullProperties[field] ?? {};
      if (dtoRequired.has(field) && !required.includes(field)) required.push(field);
    }
    for (const [field, schema] of Object.entries(kind.docs?.slim ?? {})) {
      properties[field] = schema;
      required.push(field);
    }
    for (const join of kind.slimJoins ?? []) {
      properties[join.as] = { type: 'string', description: `the ${join.take} of the ${join.kind} named by ${join.field} ("" when it is gone)` };
      required.push(join.as);
    }
    if (kind.slimChildren) {
      const child = assetKindByName(kind.slimChildren.kind);
      if (!child) throw new Error(`${kind.kind}: slim children of unknown kind ${kind.slimChildren.kind}`);
      properties[kind.slimChildren.as] = { type: 'array', items: this.slim(child) };
      required.push(kind.slimChildren.as);
    }
    return { title: `${kind.eventPrefix} (slim record)`, type: 'object', properties, required, additionalProperties: false };
  }
}

/** A view's records are named after its id field (`idCampaign`: CampaignRecord, CampaignSlim). */
function nameOf(kind: AssetKindDescriptor, names: Readonly<Record<string, string>> | undefined): string {
  const viewId = names?.[kind.idField];
  if (!names) return kind.eventPrefix;
  if (viewId && /^id[A-Z]/.test(viewId)) return viewId.slice(2);
  return `${kind.eventPrefix}_${Object.values(names).join('_')}`.replace(/[^A-Za-z0-9_]/g, '');
}

/** A record schema with its top-level fields renamed (a view's names). */
function renamed(schema: Schema, names: Readonly<Record<string, string>> | undefined): Schema {
  if (!names) return schema;
  const properties = Object.fromEntries(Object.entries(schema.properties as Record<string, unknown>).map(([key, value]) => [names[key] ?? key, value]));
  const required = (schema.required as string[] | undefined)?.map((key) => names[key] ?? key);
  return { ...schema, properties, ...(required ? { required } : {}) };
}

const STRING = { type: 'string' };
/** Keyset paging of every list and find answer (see "Change history, edit conflicts and pagination"). */
const PAGE_PARAMS: QueryParamDoc[] = [
  {
    name: 'limit',
    required: false,
    schema: { type: 'string', pattern: '^[0-9]+$' },
    description: `at most this many records, 1..${MAX_PAGE_SIZE}, in id order; the \`X-Next-Cursor\` header then names the next page (without limit: the whole answer)`,
  },
  { name: 'cursor', required: false, schema: STRING, description: "the previous page's `X-Next-Cursor`" },
];
const IF_MATCH = {
  name: 'If-Match',
  description: 'W/"<revision>" from find/byId\'s ETag: 412 ASSET.REVISION_MISMATCH when the asset has moved on (bulk operations: one entry only)',
};
const STATUS = { type: 'string', enum: [...STATUS_FILTERS] };
const ID_LIST = { type: 'string', description: `comma-separated ids (or the parameter repeated), at most ${MAX_BULK_IDS}` };

function filterParams(filters: readonly QueryFilter[] | undefined): QueryParamDoc[] {
  return (filters ?? []).map((f) => ({ name: f.param, required: f.required, schema: f.allowed ? { type: 'string', enum: [...f.allowed] } : STRING }));
}

/** The body, query parameters and answer of one asset operation, derived from the kind's descriptor. */
export function assetOperationDoc(
  records: AssetRecordSchemas,
  kind: AssetKindDescriptor,
  operation: AssetOperation,
  renames: FieldRenames | undefined,
  noAnswer: boolean,
): RouteDoc {
  const answerNames = renames?.answer;
  // A view's requests name fields its own way: the record and the query parameters.
  const requestNames = renames?.request ? Object.fromEntries(Object.entries(renames.request).map(([view, own]) => [own, view])) : undefined;
  const param = (name: string, required = true, schema: unknown = STRING, description?: string): QueryParamDoc => ({
    name: requestNames?.[name] ?? name,
    required,
    schema: schema as Schema,
    ...(description ? { description } : {}),
  });
  const full = () => records.full(kind, answerNames);
  const slim = () => records.slim(kind, answerNames);
  const list = (item: Schema) => ({ type: 'array', items: item });
  const own = kind.docs?.operations?.[operation];
  const paged = PAGED_OPERATIONS.has(operation);
  const conditional = CONDITIONAL_OPERATIONS.has(operation);
  const doc = (d: RouteDoc): RouteDoc => ({
    tag: kind.kind,
    ...d,
    ...(paged ? { query: [...(d.query ?? []), ...PAGE_PARAMS] } : {}),
    ...(conditional ? { headers: [...(d.headers ?? []), IF_MATCH] } : {}),
    ...(noAnswer ? { answer: undefined } : {}),
  });
  const recordBody = () => records.body(kind, requestNames);
  switch (operation) {
    case 'list':
      return doc({
        summary: `List ${kind.kind} assets (slim records)`,
        query: [
          param('status', kind.list.statusRequired, STATUS, `default ${kind.list.defaultStatus}`),
          ...filterParams(kind.list.filters),
          ...(kind.scopeField ? [param('idFunnel', false), param('globalOnly', false, { type: 'string', enum: ['true', 'false'] })] : []),
        ],
        answer: list(slim()),
      });
    case 'findById':
      return doc({ summary: `One ${kind.kind} (full record)`, query: [param(kind.idField)], answer: full() });
    case 'findByIds':
      return doc({
        summary: `Several ${kind.kind} assets by id (full records, unknown ids left out)`,
        query: [param(kind.idsParam, true, ID_LIST)],
        answer: list(full()),
      });
    case 'findByStatus':
      return doc({
        summary: `${kind.kind} assets by status (slim records)`,
        query: [param('status', true, STATUS), ...filterParams(kind.findByStatusFilters)],
        answer: list(slim()),
      });
    case 'findByType':
      return doc({
        summary: `${kind.kind} assets of one type (slim records)`,
        query: [...filterParams(kind.typeFilter ? [kind.typeFilter] : []), param('status', false, STATUS, 'default not-deleted')],
        answer: list(slim()),
      });
    case 'findByCategory':
      return doc({
        summary: `The non-deleted ${kind.kind} assets in one ${kind.parent ? kind.parent.kind : 'category'} (full records)`,
        query: [param(kind.parent ? kind.parent.field : 'idCategory'), ...filterParams(kind.findByCategoryFilters)],
        answer: list(full()),
      });
    case 'findByName':
    case 'findBySlug': {
      const lookup = kind.lookups?.[operation];
      return doc({ summary: `${kind.kind} by ${lookup?.param}`, query: lookup ? [param(lookup.param)] : [], answer: lookup?.single ? full() : list(full()) });
    }
    case 'create':
    case 'update':
      return doc({
        summary: `${operation === 'create' ? 'Create' : 'Update'} a ${kind.kind}${kind.upsert ? ' (creates or updates)' : ''}`,
        body: recordBody(),
        ...(kind.upsert
          ? {
              answer: { type: 'object', required: [kind.idField], properties: { [kind.idField]: STRING }, additionalProperties: false },
              answerOptional: true,
              description: `A record without ${kind.idField} gets one from the service, answered as \`{ ${kind.idField} }\`; otherwise no body.`,
            }
          : kind.saveAnswersRecord
            ? { answer: full() }
            : {}),
      });
    case 'duplicate':
      return doc({
        summary: `Duplicate a ${kind.kind}`,
        query: [param(kind.idField)],
        body: DuplicateRequestDto,
        answer: { type: 'object', required: ['id'], properties: { id: STRING }, additionalProperties: false },
      });
    case 'delete':
    case 'archive':
      return doc({
        summary: `${operation === 'delete' ? 'Delete' : 'Archive'} ${kind.kind} assets`,
        body: kind.isParent ? ParentMutationRequestDto : StringListDto,
        ...(operation === 'delete' ? { query: [param(kind.idField, false, STRING, 'legacy single-id form, without a body')], bodyOptional: true } : {}),
      });
    case 'unarchive':
      return doc({ summary: `Unarchive ${kind.kind} assets`, body: StringListDto });
    case 'moveCategory':
      return doc({ summary: `Move ${kind.kind} assets to a category`, body: MoveCategoryRequestDto });
    case 'move': {
      const field = kind.parent?.field ?? 'parent';
      return doc({
        summary: `Move ${kind.kind} assets to another ${kind.parent?.kind ?? 'parent'}`,
        body: { type: 'object', allOf: [StringListDto], required: [field], properties: { [field]: STRING } },
      });
    }
    case 'history':
      return doc({
        summary: `The changes of one ${kind.kind}, newest first`,
        query: [
          param(kind.idField),
          param('limit', false, { type: 'string', pattern: '^[0-9]+$' }, 'entries per page, 1..200 (default 50)'),
          param('beforeRevision', false, { type: 'string', pattern: '^[0-9]+$' }, 'only entries older than this revision (the next page)'),
        ],
        answer: list(HISTORY_ENTRY),
      });
    case 'validate':
      return doc({
        summary: `Check a ${kind.kind} as save would, without storing it`,
        body: recordBody(),
        answer: {
          type: 'object',
          required: ['valid', 'errors', 'warnings'],
          additionalProperties: false,
          properties: { valid: { type: 'boolean' }, errors: list(PROBLEM), warnings: list(PROBLEM) },
        },
      });
    default:
      // The kind's own operations (evaluate, secret, test ...): declared with the kind (descriptor `docs.operations`).
      return doc({
        summary: own?.summary ?? `${kind.kind} ${operation}`,
        ...(own?.description ? { description: own.description } : {}),
        ...(['secret', 'rotateSecret', 'test'].includes(operation) ? { query: [param(kind.idField)] } : {}),
        ...(own?.body ? { body: own.body } : {}),
        ...(own?.answer ? { answer: own.answer } : {}),
        ...(own?.bodyExample !== undefined ? { bodyExample: own.bodyExample } : {}),
        ...(own?.answerExample !== undefined ? { answerExample: own.answerExample } : {}),
      });
  }
}

/** One entry of an asset's history (AssetHistoryEntry): secrets read as `********`, never as values. */
const HISTORY_ENTRY = {
  type: 'object',
  required: ['revision', 'type', 'occurredAt', 'actor', 'changes'],
  additionalProperties: false,
  properties: {
    revision: { type: 'integer', minimum: 0 },
    type: STRING,
    occurredAt: { type: 'string', format: 'date-time' },
    actor: {
      type: 'object',
      required: ['userId', 'keyId'],
      additionalProperties: false,
      properties: { userId: { type: ['string', 'null'] }, keyId: { type: ['string', 'null'] } },
    },
    changes: {
      type: 'array',
      items: { type: 'object', required: ['path'], additionalProperties: false, properties: { path: STRING, from: {}, to: {} } },
    },
  },
};

/** One problem of a validate answer (the details of a 400). */
const PROBLEM = {
  type: 'object',
  required: ['field', 'code', 'message'],
  properties: { field: STRING, code: STRING, message: STRING, line: { type: 'integer' }, column: { type: 'integer' } },
};
