import { AssetOperation, RECORD_CHANGES_IN_ANSWER, RECORD_FIELDS_IN_REQUEST, ServiceError } from '@funnel/contracts';

/**
 * Field names a view of an asset kind changes (legacy `/campaign/*` shows funnel groups with
 * `idCampaign` and `campaignName`): `request` maps the view's names to the kind's, on the query and
 * the body's top-level fields, and inside the body fields that hold record fields (`nested`: a
 * duplicate's `bodyUpdates`); `answer` maps the kind's to the view's, on the answer's top-level
 * fields (each element's, for a list); `errors` does the same in an error's message and its
 * details' field paths and messages. Other nested records keep their names (a CampaignInfo's
 * `funnels` are FunnelInfo records, which name their group `idFunnelGroup`), and so do maps whose
 * keys are the client's (trackingUrlParams, meta).
 */
export interface FieldRenames {
  request?: Readonly<Record<string, string>>;
  /** Request body fields whose object holds record fields, renamed too (see RECORD_FIELDS_IN_REQUEST). */
  nested?: readonly string[];
  answer?: Readonly<Record<string, string>>;
  /** For an answer listing record changes (see RECORD_CHANGES_IN_ANSWER): the first segment of each change's path. */
  changePaths?: Readonly<Record<string, string>>;
  errors?: Readonly<Record<string, string>>;
}

/** The renames of a view whose field names are `fieldNames` (the kind's name to the view's) on `operation`. */
export function renamesOf(fieldNames: Readonly<Record<string, string>>, operation?: AssetOperation): FieldRenames {
  const nested = (operation && RECORD_FIELDS_IN_REQUEST[operation]) ?? [];
  const changes = operation !== undefined && RECORD_CHANGES_IN_ANSWER.has(operation);
  return {
    request: Object.fromEntries(Object.entries(fieldNames).map(([own, view]) => [view, own])),
    ...(nested.length ? { nested } : {}),
    ...(changes ? { changePaths: fieldNames } : { answer: fieldNames }),
    errors: fieldNames,
  };
}

/** Whether an answer is written as the service serialized it (no field of it is renamed). */
export function keepsAnswer(renames: FieldRenames | undefined): boolean {
  return !renames?.answer && !renames?.changePaths;
}

/** An object's top-level fields renamed (others kept, in order); anything else as it is. */
export function renameFields<T>(value: T, names: Readonly<Record<string, string>> | undefined): T {
  if (!names || !isObject(value)) return value;
  const renamed: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) renamed[names[key] ?? key] = field;
  return renamed as T;
}

/** A request body renamed: its top-level fields, and those of each nested field holding record fields. */
export function renameRequestBody(body: unknown, renames: FieldRenames | undefined): unknown {
  const renamed = renameFields(body, renames?.request);
  if (!renames?.nested || renamed === body || !isObject(renamed)) return renamed;
  const fields = renamed as Record<string, unknown>;
  for (const key of renames.nested) if (isObject(fields[key])) fields[key] = renameFields(fields[key], renames.request);
  return renamed;
}

/** An answer renamed: the record's fields, or each listed record's; or the paths of each entry's changes. */
export function renameAnswer(answer: unknown, renames: FieldRenames | undefined): unknown {
  if (renames?.changePaths) return renameChangePaths(answer, renames.changePaths);
  const names = renames?.answer;
  if (!names) return answer;
  return Array.isArray(answer) ? answer.map((item) => renameFields(item, names)) : renameFields(answer, names);
}

/** `[{ changes: [{ path }] }]` with each path's first segment (a field of the record) renamed. */
function renameChangePaths(answer: unknown, names: Readonly<Record<string, string>>): unknown {
  if (!Array.isArray(answer)) return answer;
  const renamePath = (path: string) => {
    const end = path.search(/[.[]/);
    const field = end < 0 ? path : path.slice(0, end);
    return names[field] === undefined ? path : names[field] + path.slice(field.length);
  };
  return answer.map((entry) =>
    isObject(entry) && Array.isArray(entry.changes)
      ? {
          ...entry,
          changes: entry.changes.map((change) => (isObject(change) && typeof change.path === 'string' ? { ...change, path: renamePath(change.path) } : change)),
        }
      : entry,
  );
}

const namePatterns = new WeakMap<Readonly<Record<string, string>>, RegExp>();

/** A field's name as a whole word (a path segment, or a word of a sentence): `idFunnelGroup` is not in `idFunnelGroups`. */
function namePattern(names: Readonly<Record<string, string>>): RegExp {
  let pattern = namePatterns.get(names);
  if (!pattern) {
    pattern = new RegExp(`\\b(?:${Object.keys(names).join('|')})\\b`, 'g');
    namePatterns.set(names, pattern);
  }
  return pattern;
}

/** An error with the kind's field names replaced by the view's in its message and its details' field paths and messages. */
export function renameError(error: ServiceError, names: Readonly<Record<string, string>> | undefined): ServiceError {
  if (!names) return error;
  const pattern = namePattern(names);
  const text = (value: string) => value.replace(pattern, (name) => names[name]);
  const details = error.details.map((detail) => ({ ...detail, field: text(detail.field), message: text(detail.message) }));
  return new ServiceError(error.status, error.code, text(error.message), details, error.correlationId, error.retryAfterSeconds);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
