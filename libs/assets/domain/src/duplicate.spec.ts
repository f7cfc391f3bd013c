import { CONDITION_KIND, FUNNEL_KIND, PAGE_GROUP_KIND, VISITOR_TAG_KIND } from '@funnel/contracts';
import { AssetEvent, AssetRecord, PlannedCopy } from './asset-events';
import { copiesOfDecision, draftDuplicate, planDuplicateParts } from './duplicate';
import { KIND_RULES } from './kinds';
import { IDS, id, validFunnel } from './kinds/funnel/funnel.fixtures';

/** Ids handed out in order: `new1ZZZZZZZZZ`, `new2ZZZZZZZZZ`, ... */
const sequence = () => {
  let n = 0;
  return () => id(`new${++n}`);
};

describe('draftDuplicate', () => {
  const funnel = validFunnel() as unknown as AssetRecord;
  const landers = { idPageGroup: IDS.landers, pageGroupName: 'local landers', pageType: 'lander', restrictToFunnelId: IDS.funnel, pages: [], status: 'active' };
  const condition = { idCondition: IDS.condition, conditionName: 'local device', restrictToFunnelId: IDS.funnel, routes: [], status: 'archived' };
  const draft = () =>
    draftDuplicate({
      kind: FUNNEL_KIND,
      source: funnel,
      sourceId: IDS.funnel,
      request: { name: 'copy', parentId: id('otherGroup') },
      newId: id('funnelCopy'),
      locals: [
        { kind: PAGE_GROUP_KIND, record: landers as AssetRecord },
        { kind: CONDITION_KIND, record: condition as AssetRecord },
      ],
      remap: KIND_RULES.funnel.remapDuplicate,
      nextId: sequence(),
    });

  it('given a funnel with a local page group and condition, then the local copies come first, local to the copy, with ids from the generator', () => {
    const [pageGroup, cond] = draft();
    expect(pageGroup).toMatchObject({ kind: PAGE_GROUP_KIND, id: id('new1'), duplicatedFrom: IDS.landers });
    expect(pageGroup.record).toMatchObject({ idPageGroup: id('new1'), pageGroupName: 'local landers', restrictToFunnelId: id('funnelCopy'), status: 'active' });
    expect(cond).toMatchObject({ kind: CONDITION_KIND, id: id('new2'), duplicatedFrom: IDS.condition });
    expect(cond.record).toMatchObject({ idCondition: id('new2'), restrictToFunnelId: id('funnelCopy'), status: 'active' });
  });

  it('then the copy comes last, in the requested group, every local reference remapped and the global ones kept', () => {
    const drafts = draft();
    expect(drafts).toHaveLength(3);
    const copy = drafts[2];
    expect(copy).toMatchObject({ kind: FUNNEL_KIND, id: id('funnelCopy'), duplicatedFrom: IDS.funnel });
    expect(copy.record).toMatchObject({ idFunnel: id('funnelCopy'), idFunnelGroup: id('otherGroup'), funnelName: 'copy', status: 'active' });
    const nodes = copy.record.nodes as unknown as {
      idNode: string;
      nodePageGroupParams: { idPageGroup: string };
      nodeConditionParams: { idCondition: string };
    }[];
    expect(nodes[2].nodePageGroupParams.idPageGroup).toBe(id('new1'));
    expect(nodes[3].nodeConditionParams.idCondition).toBe(id('new2'));
    expect(nodes[4].nodePageGroupParams.idPageGroup).toBe(IDS.offers);
    // New node ids, and no source node id left in the copy.
    const sourceNodeIds = new Set((funnel.nodes as { idNode: string }[]).map((n) => n.idNode));
    expect(nodes.some((n) => sourceNodeIds.has(n.idNode))).toBe(false);
    // The secrets' source is the remapped copy: a placeholder keeps the secret of the same (new) node.
    expect((copy.secretSource.nodes as { idNode: string }[]).map((n) => n.idNode)).toEqual(nodes.map((n) => n.idNode));
    expect(funnel).toEqual(validFunnel());
  });

  it('a copy of a kind without local assets is one draft; a unique value gets a suffix from the generator', () => {
    const kind = { ...VISITOR_TAG_KIND, uniqueFields: [{ field: 'tagName', code: 'X', maxLength: 8 }] };
    const drafts = draftDuplicate({
      kind,
      source: { idTag: id('tag'), tagName: 'buyers01', status: 'archived', idCategory: '' },
      sourceId: id('tag'),
      request: { name: 'ignored' },
      newId: id('tagCopy'),
      nextId: () => 'abcdefgVWXYZ',
    });
    expect(drafts).toEqual([
      expect.objectContaining({
        id: id('tagCopy'),
        duplicatedFrom: id('tag'),
        record: expect.objectContaining({ idTag: id('tagCopy'), tagName: 'bu-VWXYZ', status: 'active' }),
      }),
    ]);
  });
});

describe('planDuplicateParts and copiesOfDecision', () => {
  /** A copy whose JSON is `bytes` long. */
  const copyOf = (n: number, bytes: number): PlannedCopy => {
    const base: PlannedCopy = { kind: 'visitortag', id: `COPY${String(n).padStart(8, '0')}`, duplicatedFrom: 'SOURCE', record: { status: 'active', pad: '' } };
    base.record.pad = 'x'.repeat(bytes - JSON.stringify(base).length);
    return base;
  };
  const copies = Array.from({ length: 10 }, (_, n) => copyOf(n, 200));

  it('keeps copies that fit in one part in one decision, without parts (as stored before parts existed)', () => {
    expect(planDuplicateParts({ duplicatedFrom: 'SOURCE', copies }, 2000)).toEqual({ parts: [], decision: { duplicatedFrom: 'SOURCE', copies } });
  });

  it('splits larger plans into parts of at most the budget, in order, the last part in the decision', () => {
    const { parts, decision } = planDuplicateParts({ duplicatedFrom: 'SOURCE', copies }, 700);
    expect(parts.map((p) => [p.part, p.copies.map((c) => c.id)])).toEqual([
      [0, copies.slice(0, 3).map((c) => c.id)],
      [1, copies.slice(3, 6).map((c) => c.id)],
      [2, copies.slice(6, 9).map((c) => c.id)],
    ]);
    expect(decision).toEqual({ duplicatedFrom: 'SOURCE', parts: 3, copies: copies.slice(9) });
    const planned: AssetEvent[] = parts.map((data) => ({ type: 'DuplicatePlanned', data }));
    expect(copiesOfDecision(decision, planned)).toEqual(copies);
  });

  it('gives a copy larger than the budget a part of its own', () => {
    const large = [copyOf(0, 150), copyOf(1, 1000), copyOf(2, 150)];
    const { parts, decision } = planDuplicateParts({ duplicatedFrom: 'SOURCE', copies: large }, 400);
    expect([...parts.map((p) => p.copies.length), decision.copies.length]).toEqual([1, 1, 1]);
  });

  it('refuses a decision whose stream lacks the parts it names', () => {
    const { parts, decision } = planDuplicateParts({ duplicatedFrom: 'SOURCE', copies }, 700);
    const planned: AssetEvent[] = parts.map((data) => ({ type: 'DuplicatePlanned', data }));
    expect(() => copiesOfDecision(decision, planned.slice(0, 2))).toThrow(/lacks part 2/);
    expect(() => copiesOfDecision(decision, [planned[1], planned[0], planned[2]])).toThrow(/lacks part 0/);
  });
});
