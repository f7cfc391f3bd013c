import { Doc, SortSpec } from '../read-store.port';

/**
 * `docs` sorted by `sort` when every sorted field is a top-level string in every document (an id or
 * a name: the common case), else undefined (mingo sorts them). The same order as mingo's $sort, which
 * sorts such keys with the native string order and keeps documents of equal keys in their order,
 * as this stable sort does; mingo's way costs a hash of every value (~40 ms for 10,000 documents).
 */
export function sortedByStringFields(docs: Doc[], sort: SortSpec): Doc[] | undefined {
  const fields = Object.keys(sort);
  if (fields.some((field) => field.includes('.') || (sort[field] !== 1 && sort[field] !== -1))) return undefined;
  for (const doc of docs) for (const field of fields) if (typeof doc[field] !== 'string') return undefined;
  return docs.slice().sort((a, b) => {
    for (const field of fields) {
      const x = a[field] as string;
      const y = b[field] as string;
      if (x !== y) return x < y ? -sort[field] : sort[field];
    }
    return 0;
  });
}
