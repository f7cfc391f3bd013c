import { CONDITION_KIND, FUNNEL_KIND, PAGE_GROUP_KIND, VISITOR_TAG_KIND } from '@funnel/contracts';
import { AssetRecord } from './asset-events';
import { draftDuplicate } from './duplicate';
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
