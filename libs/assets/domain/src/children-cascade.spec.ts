import { ServiceError } from '@funnel/contracts';
import { checkMoveTarget, childCommandFor, childStatusesFor, isRestoredBy, resolveChildrenDecision } from './children-cascade';
import { foldAsset } from './asset-decider';
import { duplicateRecord } from './duplicate';
import { AssetRecord } from './asset-events';
import { FUNNEL_KIND, PAGE_GROUP_KIND, VISITOR_TAG_KIND } from '@funnel/contracts';

function failure(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (e) {
    return e as ServiceError;
  }
  throw new Error('expected a failure');
}

const cat = (id: string, categoryType: string, status: AssetRecord['status'] = 'active'): AssetRecord => ({
  idCategory: id,
  categoryName: id,
  categoryType,
  status,
});

describe('resolveChildrenDecision', () => {
  it('delete with no option moves children to uncategorized', () => expect(resolveChildrenDecision('delete', {})).toEqual({ action: 'orphan' }));
  it('children that need a parent: orphan is a 400, delete with no option leaves them alone', () => {
    expect(failure(() => resolveChildrenDecision('delete', { cascadeAction: 'orphan' }, undefined, true)).code).toBe('ASSET.INVALID_CASCADE');
    expect(resolveChildrenDecision('delete', {}, undefined, true)).toEqual({ action: 'untouched' });
    expect(resolveChildrenDecision('archive', { cascadeAction: 'cascade' }, undefined, true)).toEqual({ action: 'cascade' });
  });
  it('archive with no option leaves children alone', () => expect(resolveChildrenDecision('archive', {})).toEqual({ action: 'untouched' }));
  it.each(['delete', 'archive'] as const)('%s cascade', (op) =>
    expect(resolveChildrenDecision(op, { cascadeAction: 'cascade' })).toEqual({ action: 'cascade' }),
  );
  it.each(['delete', 'archive'] as const)('%s orphan', (op) => expect(resolveChildrenDecision(op, { cascadeAction: 'orphan' })).toEqual({ action: 'orphan' }));
  it('move carries its target', () =>
    expect(resolveChildrenDecision('delete', { cascadeAction: 'move', targetParentID: 'T' })).toEqual({ action: 'move', targetParentID: 'T' }));
  it('move without targetParentID is rejected', () => {
    const e = failure(() => resolveChildrenDecision('archive', { cascadeAction: 'move' }));
    expect([e.status, e.code]).toEqual([400, 'ASSET.INVALID_CASCADE']);
  });
  it.each([undefined, 'cascade', 'orphan'] as const)('targetParentID with action %s is rejected', (action) => {
    const e = failure(() => resolveChildrenDecision('delete', { cascadeAction: action, targetParentID: 'T' }));
    expect([e.status, e.code]).toEqual([400, 'ASSET.INVALID_CASCADE']);
    expect(e.message).toMatch(/only allowed when cascadeAction is move/);
  });
  it('an action the parent kind does not allow is rejected (funnel groups refuse orphan)', () => {
    const e = failure(() => resolveChildrenDecision('delete', { cascadeAction: 'orphan' }, ['cascade', 'move']));
    expect(e.status).toBe(400);
  });
});

describe('checkMoveTarget', () => {
  const parents = [{ id: 'A', record: cat('A', 'visitorTag') }];
  it('accepts a live target of the same categoryType', () =>
    expect(() => checkMoveTarget({ targetId: 'B', target: cat('B', 'visitorTag'), parents, typeField: 'categoryType' })).not.toThrow());
  it('rejects a target of another categoryType', () =>
    expect(failure(() => checkMoveTarget({ targetId: 'B', target: cat('B', 'lander'), parents, typeField: 'categoryType' })).status).toBe(400));
  it('rejects a target that is one of the entries', () =>
    expect(failure(() => checkMoveTarget({ targetId: 'A', target: cat('A', 'visitorTag'), parents, typeField: 'categoryType' })).status).toBe(400));
  it('a missing target is a 404', () => expect(failure(() => checkMoveTarget({ targetId: 'B', target: null, parents })).status).toBe(404));
  it('a deleted target is a 404', () =>
    expect(failure(() => checkMoveTarget({ targetId: 'B', target: cat('B', 'visitorTag', 'deleted'), parents })).status).toBe(404));
});

describe('childCommandFor', () => {
  it('cascade deletes or archives children', () => {
    expect(childCommandFor('delete', { action: 'cascade' })).toEqual({ type: 'DeleteAsset' });
    expect(childCommandFor('archive', { action: 'cascade' })).toEqual({ type: 'ArchiveAsset' });
  });
  it('move reassigns children, orphan clears their category', () => {
    expect(childCommandFor('archive', { action: 'move', targetParentID: 'T' })).toEqual({ type: 'MoveAssetToCategory', idCategory: 'T' });
    expect(childCommandFor('delete', { action: 'orphan' })).toEqual({ type: 'MoveAssetToCategory', idCategory: '' });
  });
  it('untouched sends nothing', () => expect(childCommandFor('archive', { action: 'untouched' })).toBeNull());
  it('archive cascade reaches active children only, unarchive archived ones only', () => {
    expect(childStatusesFor('archive', { action: 'cascade' })).toEqual(['active']);
    expect(childStatusesFor('delete', { action: 'cascade' })).toEqual(['active', 'archived']);
    expect(childStatusesFor('unarchive', { action: 'cascade' })).toEqual(['archived']);
  });
  it("an archive in cascade names the parent in each child's command; an unarchive in cascade unarchives them", () => {
    expect(childCommandFor('archive', { action: 'cascade' }, { kind: 'funnel', id: 'F' })).toEqual({
      type: 'ArchiveAsset',
      cascadedFrom: { kind: 'funnel', id: 'F' },
    });
    expect(childCommandFor('unarchive', { action: 'cascade' }, { kind: 'funnel', id: 'F' })).toEqual({ type: 'UnarchiveAsset' });
  });
});

describe('isRestoredBy', () => {
  const created = { type: 'Created' as const, data: { record: { idPageGroup: 'P', status: 'active' as const } } };
  const byFunnel = { type: 'Archived' as const, data: { cascadedFrom: { kind: 'funnel', id: 'F' } } };
  const funnel = { kind: 'funnel', id: 'F' };
  it("is true for a child archived by the parent's archive, also after a save while archived", () => {
    expect(isRestoredBy(foldAsset([created, byFunnel]), funnel)).toBe(true);
    const saved = { type: 'Updated' as const, data: { record: { idPageGroup: 'P', pageGroupName: 'x', status: 'archived' as const } } };
    expect(isRestoredBy(foldAsset([created, byFunnel, saved]), funnel)).toBe(true);
  });
  it('is false for a child archived on its own, by another parent, or no longer archived', () => {
    expect(isRestoredBy(foldAsset([created, { type: 'Archived', data: {} }]), funnel)).toBe(false);
    expect(isRestoredBy(foldAsset([created, byFunnel]), { kind: 'funnel', id: 'G' })).toBe(false);
    expect(isRestoredBy(foldAsset([created, byFunnel, { type: 'Unarchived', data: {} }, { type: 'Archived', data: {} }]), funnel)).toBe(false);
    const activated = { type: 'Updated' as const, data: { record: { idPageGroup: 'P', status: 'active' as const } } };
    expect(isRestoredBy(foldAsset([created, byFunnel, activated]), funnel)).toBe(false);
  });
});

describe('duplicateRecord', () => {
  const source: AssetRecord = { idTag: '0AbCdEfGhIjK', tagName: 'a', color: 'red', status: 'archived', idCategory: 'C', categoryName: 'x' };
  it('copies, renames, applies bodyUpdates, then sets the protected fields', () => {
    const copy = duplicateRecord(
      VISITOR_TAG_KIND,
      source,
      { name: 'b', bodyUpdates: { color: 'blue', status: 'deleted', owner: 'evil', idTag: 'hack' } },
      'NEWID0000000',
    );
    expect(copy).toEqual({ idTag: 'NEWID0000000', tagName: 'b', color: 'blue', status: 'active', idCategory: 'C' });
  });
  it('parentId places a copy of a kind held by a parent record in that parent; absent or empty keeps the source parent', () => {
    const funnel: AssetRecord = { idFunnel: 'F', funnelName: 'f', idFunnelGroup: 'G', status: 'active', nodes: [], connections: [] };
    expect(duplicateRecord(FUNNEL_KIND, funnel, { name: 'c', parentId: 'H' }, 'N')).toMatchObject({ idFunnel: 'N', funnelName: 'c', idFunnelGroup: 'H' });
    expect(duplicateRecord(FUNNEL_KIND, funnel, { name: 'c' }, 'N').idFunnelGroup).toBe('G');
    expect(duplicateRecord(FUNNEL_KIND, funnel, { name: 'c', parentId: '' }, 'N').idFunnelGroup).toBe('G');
  });
  it('parentId places the copy in a category', () => expect(duplicateRecord(VISITOR_TAG_KIND, source, { name: 'b', parentId: '' }, 'N').idCategory).toBe(''));

  describe('of a kind with a funnel-local scope', () => {
    const group: AssetRecord = { idPageGroup: 'G', pageGroupName: 'g', pageType: 'lander', restrictToFunnelId: '', status: 'active', idCategory: 'C' };
    const local: AssetRecord = { ...group, restrictToFunnelId: 'F', idCategory: '' };
    const copy = (source: AssetRecord, request: { parentId?: string; bodyUpdates?: Record<string, unknown> }) =>
      duplicateRecord(PAGE_GROUP_KIND, source, { name: 'copy', ...request }, 'N');

    it('given a local source, when copied, then the copy is local to the same funnel', () =>
      expect(copy(local, {})).toMatchObject({ restrictToFunnelId: 'F', idCategory: '' }));
    it('given bodyUpdates naming another funnel, when copied, then the copy is local to that one', () =>
      expect(copy(local, { bodyUpdates: { restrictToFunnelId: 'H' } })).toMatchObject({ restrictToFunnelId: 'H', idCategory: '' }));
    it('given a global source in a category, when made local, then the copy leaves the category', () =>
      expect(copy(group, { bodyUpdates: { restrictToFunnelId: 'F' } })).toMatchObject({ restrictToFunnelId: 'F', idCategory: '' }));
    it('given a category asked for explicitly, when made local, then the category is kept (for the save rules to refuse)', () => {
      expect(copy(group, { parentId: 'D', bodyUpdates: { restrictToFunnelId: 'F' } }).idCategory).toBe('D');
      expect(copy(group, { bodyUpdates: { restrictToFunnelId: 'F', idCategory: 'D' } }).idCategory).toBe('D');
    });
    it('given a global source, when copied, then the copy keeps its category', () =>
      expect(copy(group, {})).toMatchObject({ restrictToFunnelId: '', idCategory: 'C' }));
  });
});
