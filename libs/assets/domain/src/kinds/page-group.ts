import type { AssetReference, FieldProblem, KindRules } from './kind-rules';

interface Entry {
  idPage: string;
  weight: number;
}

const entriesOf = (record: Record<string, unknown>) => (record.pages ?? []) as Entry[];

/** Page groups: weighted pages, each a live page of the group's pageType, none twice. */
export const pageGroupRules: KindRules = {
  check(record) {
    const problems: FieldProblem[] = [];
    const seen = new Set<string>();
    entriesOf(record).forEach(({ idPage }, i) => {
      if (seen.has(idPage)) problems.push({ field: `pages[${i}].idPage`, code: 'unique', message: `pages[${i}].idPage ${idPage} is already in the group` });
      seen.add(idPage);
    });
    return problems;
  },

  references(record) {
    return entriesOf(record).map(({ idPage }, i): AssetReference => ({
      field: `pages[${i}].idPage`,
      kind: 'page',
      id: idPage,
      where: { pageType: record.pageType },
    }));
  },

  /** The entries as stored: only idPage and weight. */
  normalize(record) {
    return { ...record, pages: entriesOf(record).map(({ idPage, weight }) => ({ idPage, weight })) };
  },

  slim(record) {
    return { pageCount: entriesOf(record).length };
  },
};
