/** Log positions as the asset events carry them, `<commit>/<prepare>`: compared as numbers. */
export function comparePositionText(a: string, b: string): number {
  const [ac, ap] = parts(a);
  const [bc, bp] = parts(b);
  if (ac !== bc) return ac < bc ? -1 : 1;
  if (ap !== bp) return ap < bp ? -1 : 1;
  return 0;
}

function parts(text: string): [bigint, bigint] {
  const [commit, prepare] = text.split('/');
  const c = BigInt(commit);
  return [c, prepare === undefined ? c : BigInt(prepare)];
}

/** True for a position the events may carry (`<digits>/<digits>`). */
export function isPositionText(value: unknown): value is string {
  return typeof value === 'string' && /^-?\d{1,20}\/-?\d{1,20}$/.test(value);
}
