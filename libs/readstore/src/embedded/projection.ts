import { Doc, ProjectionSpec } from '../read-store.port';
import { type Row, cloneValue } from './documents';

/**
 * Projections naming only top-level fields, all included or all excluded (_id aside), are applied
 * here: each mingo cursor stage costs tens of microseconds, too much for a request's findOne.
 * Anything else (dotted paths, operators, mixed modes) is left to mingo.
 */
interface TopLevelProjection {
  include: boolean;
  fields: Set<string>;
  keepId: boolean;
}

export function topLevelProjectionOf(projection: ProjectionSpec): TopLevelProjection | undefined {
  let include: boolean | undefined;
  const fields = new Set<string>();
  for (const field in projection) {
    const value: unknown = projection[field];
    if (field.includes('.') || field.startsWith('$') || (value !== 0 && value !== 1 && typeof value !== 'boolean')) return undefined;
    if (field === '_id') continue;
    const included = Boolean(value);
    if (include !== undefined && include !== included) return undefined;
    include = included;
    fields.add(field);
  }
  const keepId = projection._id === undefined || Boolean(projection._id);
  // With _id alone, {_id: 1} includes only it and {_id: 0} excludes only it; {} projects nothing away.
  return { include: include ?? (projection._id !== undefined && keepId), fields, keepId };
}

export function projectTopLevel(doc: Doc, { include, fields, keepId }: TopLevelProjection): Doc {
  const projected: Row = {};
  for (const field in doc) {
    const wanted = field === '_id' ? keepId : fields.has(field) === include;
    if (wanted) projected[field] = cloneValue(doc[field]);
  }
  return projected as Doc;
}
