import leven from 'leven';
import { ReportingQueryErrorCodes, ServiceError } from '@funnel/contracts';

/** Something a request names by key or label. */
export interface Named {
  key: string;
  label: string;
}

const fold = (name: string) => name.trim().toLowerCase();

/**
 * Finds `name` among `candidates` by key or label, case-insensitively (and by `aliases`: other
 * labels -> key). Unknown: a 400 `REPORTING.UNKNOWN_NAME` naming it and the nearest valid label.
 */
export function resolveName<T extends Named>(
  what: string,
  field: string,
  name: string,
  candidates: readonly T[],
  aliases: Readonly<Record<string, string>> = {},
): T {
  const folded = fold(name);
  const found = candidates.find((candidate) => fold(candidate.key) === folded || fold(candidate.label) === folded);
  if (found) return found;
  const alias = Object.entries(aliases).find(([label]) => fold(label) === folded);
  const aliased = alias && candidates.find((candidate) => candidate.key === alias[1]);
  if (aliased) return aliased;
  throw unknownName(what, field, name, candidates);
}

/** The candidate label (or key) nearest to `name` by edit distance. */
export function nearestName(name: string, candidates: readonly Named[]): string | undefined {
  const folded = fold(name);
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    for (const option of [candidate.label, candidate.key]) {
      const distance = leven(folded, fold(option));
      if (!best || distance < best.distance) best = { name: candidate.label, distance };
    }
  }
  return best?.name;
}

export function unknownName(what: string, field: string, name: string, candidates: readonly Named[]): ServiceError {
  const nearest = nearestName(name, candidates);
  const shown = JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
  const message = `unknown ${what} ${shown}${nearest ? `; the nearest valid name is "${nearest}"` : ''}`;
  return ServiceError.badRequest(ReportingQueryErrorCodes.UNKNOWN_NAME, message, [{ field, code: 'unknownName', message }]);
}
