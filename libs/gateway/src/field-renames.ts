/**
 * Field names a view of an asset kind changes (legacy `/campaign/*` shows funnel groups with
 * `idCampaign` and `campaignName`): `request` maps the view's names to the kind's, on the query and
 * the body's top-level fields; `answer` maps the kind's to the view's, on the answer's top-level
 * fields (each element's, for a list). Nested records keep their names (a CampaignInfo's `funnels`
 * are FunnelInfo records, which name their group `idFunnelGroup`).
 */
export interface FieldRenames {
  request?: Readonly<Record<string, string>>;
  answer?: Readonly<Record<string, string>>;
}

/** The renames of a view whose field names are `fieldNames` (the kind's name to the view's). */
export function renamesOf(fieldNames: Readonly<Record<string, string>>): FieldRenames {
  return { request: Object.fromEntries(Object.entries(fieldNames).map(([own, view]) => [view, own])), answer: fieldNames };
}

/** An object's top-level fields renamed (others kept, in order); anything else as it is. */
export function renameFields<T>(value: T, names: Readonly<Record<string, string>> | undefined): T {
  if (!names || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const renamed: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) renamed[names[key] ?? key] = field;
  return renamed as T;
}

/** An answer renamed: the record's fields, or each listed record's. */
export function renameAnswer(answer: unknown, names: Readonly<Record<string, string>> | undefined): unknown {
  if (!names) return answer;
  return Array.isArray(answer) ? answer.map((item) => renameFields(item, names)) : renameFields(answer, names);
}
