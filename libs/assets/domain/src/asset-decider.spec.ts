import { ServiceError } from '@funnel/contracts';
import { AssetCommand, AssetState, decideAsset, foldAsset, initialAssetState } from './asset-decider';
import { AssetEvent, AssetRecord } from './asset-events';

const ref = { kind: 'visitortag', id: '0AbCdEfGhIjK' };
const tag = (over: Partial<AssetRecord> = {}): AssetRecord => ({ idTag: ref.id, tagName: 'buyers', status: 'active', idCategory: '', ...over });

/** given(events).when(command).then(events | error) */
function given(events: AssetEvent[]) {
  const state: AssetState = foldAsset(events, initialAssetState());
  return {
    when: (command: AssetCommand) => ({
      then: (expected: AssetEvent[]) => expect(decideAsset(command, state, ref)).toEqual(expected),
      thenFails: (status: number, code: string) => {
        let thrown: unknown;
        try {
          decideAsset(command, state, ref);
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toBeInstanceOf(ServiceError);
        expect((thrown as ServiceError).status).toBe(status);
        expect((thrown as ServiceError).code).toBe(code);
      },
    }),
  };
}

const created: AssetEvent = { type: 'Created', data: { record: tag() } };

describe('asset decider', () => {
  it('creates a new asset', () => given([]).when({ type: 'CreateAsset', record: tag() }).then([created]));
  it('refuses to create an id that exists (409)', () => given([created]).when({ type: 'CreateAsset', record: tag() }).thenFails(409, 'ASSET.ALREADY_EXISTS'));
  it('records where a duplicate came from', () =>
    given([])
      .when({ type: 'CreateAsset', record: tag(), duplicatedFrom: 'X' })
      .then([{ type: 'Created', data: { record: tag(), duplicatedFrom: 'X' } }]));
  describe('a multi-asset duplicate', () => {
    const decision = { duplicatedFrom: 'SOURCE', copies: [{ kind: 'visitortag', id: ref.id, duplicatedFrom: 'SOURCE', record: tag() }] };
    const decided: AssetEvent = { type: 'DuplicateDecided', data: decision };
    it('is decided on a new stream', () => given([]).when({ type: 'DecideDuplicate', decision }).then([decided]));
    it('is decided once: a second decision on the stream is a 409', () =>
      given([decided]).when({ type: 'DecideDuplicate', decision }).thenFails(409, 'ASSET.ALREADY_EXISTS'));
    it('is not decided over an existing asset', () => given([created]).when({ type: 'DecideDuplicate', decision }).thenFails(409, 'ASSET.ALREADY_EXISTS'));
    it('leaves the copy unborn until its completion creates it', () => expect(foldAsset([decided]).record).toBeNull());
    it('lets its completion create the copy', () =>
      given([decided])
        .when({ type: 'CreateAsset', record: tag(), duplicatedFrom: 'SOURCE' })
        .then([{ type: 'Created', data: { record: tag(), duplicatedFrom: 'SOURCE' } }]));
    it('keeps the id from any other create', () => given([decided]).when({ type: 'CreateAsset', record: tag() }).thenFails(409, 'ASSET.ALREADY_EXISTS'));
    it('is completed once: the created copy is not created again', () =>
      given([decided, { type: 'Created', data: { record: tag(), duplicatedFrom: 'SOURCE' } }])
        .when({ type: 'CreateAsset', record: tag(), duplicatedFrom: 'SOURCE' })
        .thenFails(409, 'ASSET.ALREADY_EXISTS'));
    describe('written in parts', () => {
      const copy = (id: string) => ({ kind: 'visitortag', id, duplicatedFrom: 'OTHER', record: tag({ idTag: id }) });
      const part = (n: number): AssetEvent => ({ type: 'DuplicatePlanned', data: { part: n, copies: [copy(`PART${n}0000000`.slice(0, 12))] } });
      const inParts = { ...decision, parts: 2 };
      it('takes its parts in order on a new stream', () => {
        given([])
          .when({ type: 'PlanDuplicatePart', part: { part: 0, copies: [] } })
          .then([{ type: 'DuplicatePlanned', data: { part: 0, copies: [] } }]);
        given([part(0)])
          .when({ type: 'PlanDuplicatePart', part: { part: 1, copies: [] } })
          .then([{ type: 'DuplicatePlanned', data: { part: 1, copies: [] } }]);
      });
      it('refuses a part out of order, or on a decided or existing stream', () => {
        given([])
          .when({ type: 'PlanDuplicatePart', part: { part: 1, copies: [] } })
          .thenFails(409, 'ASSET.ALREADY_EXISTS');
        given([part(0)])
          .when({ type: 'PlanDuplicatePart', part: { part: 0, copies: [] } })
          .thenFails(409, 'ASSET.ALREADY_EXISTS');
        given([decided])
          .when({ type: 'PlanDuplicatePart', part: { part: 0, copies: [] } })
          .thenFails(409, 'ASSET.ALREADY_EXISTS');
        given([created])
          .when({ type: 'PlanDuplicatePart', part: { part: 0, copies: [] } })
          .thenFails(409, 'ASSET.ALREADY_EXISTS');
      });
      it('is decided after exactly the parts it names', () => {
        given([part(0), part(1)])
          .when({ type: 'DecideDuplicate', decision: inParts })
          .then([{ type: 'DuplicateDecided', data: inParts }]);
        given([part(0)])
          .when({ type: 'DecideDuplicate', decision: inParts })
          .thenFails(409, 'ASSET.ALREADY_EXISTS');
        given([part(0), part(1)])
          .when({ type: 'DecideDuplicate', decision })
          .thenFails(409, 'ASSET.ALREADY_EXISTS');
        given([]).when({ type: 'DecideDuplicate', decision: inParts }).thenFails(409, 'ASSET.ALREADY_EXISTS');
      });
      it('leaves the copy unborn, and its parts without a decision keep the id from every create', () => {
        expect(foldAsset([part(0), part(1), { type: 'DuplicateDecided', data: inParts }]).record).toBeNull();
        given([part(0)])
          .when({ type: 'CreateAsset', record: tag() })
          .thenFails(409, 'ASSET.ALREADY_EXISTS');
        given([part(0)])
          .when({ type: 'CreateAsset', record: tag(), duplicatedFrom: 'SOURCE' })
          .thenFails(409, 'ASSET.ALREADY_EXISTS');
      });
      it('lets the completion of its decision create the copy', () =>
        given([part(0), part(1), { type: 'DuplicateDecided', data: inParts }])
          .when({ type: 'CreateAsset', record: tag(), duplicatedFrom: 'SOURCE' })
          .then([{ type: 'Created', data: { record: tag(), duplicatedFrom: 'SOURCE' } }]));
    });
  });
  it('updates an existing asset', () =>
    given([created])
      .when({ type: 'UpdateAsset', record: tag({ tagName: 'b' }) })
      .then([{ type: 'Updated', data: { record: tag({ tagName: 'b' }) } }]));
  it('update of a missing asset is a 404', () => given([]).when({ type: 'UpdateAsset', record: tag() }).thenFails(404, 'ASSET.NOT_FOUND'));
  it('update of a deleted asset is a 409', () =>
    given([created, { type: 'Deleted', data: {} }])
      .when({ type: 'UpdateAsset', record: tag() })
      .thenFails(409, 'ASSET.INVALID_STATE'));
  it('archives an active asset', () =>
    given([created])
      .when({ type: 'ArchiveAsset' })
      .then([{ type: 'Archived', data: {} }]));
  it('archiving an archived asset is a no-op', () =>
    given([created, { type: 'Archived', data: {} }])
      .when({ type: 'ArchiveAsset' })
      .then([]));
  it('a parent archive with a children decision is recorded even when already archived', () =>
    given([created, { type: 'Archived', data: {} }])
      .when({ type: 'ArchiveAsset', children: { action: 'cascade' } })
      .then([{ type: 'Archived', data: { children: { action: 'cascade' } } }]));
  it('unarchives an archived asset', () =>
    given([created, { type: 'Archived', data: {} }])
      .when({ type: 'UnarchiveAsset' })
      .then([{ type: 'Unarchived', data: {} }]));
  it("an archive in cascade names the parent; a parent's unarchive carries its children decision", () => {
    given([created])
      .when({ type: 'ArchiveAsset', cascadedFrom: { kind: 'category', id: 'C' } })
      .then([{ type: 'Archived', data: { cascadedFrom: { kind: 'category', id: 'C' } } }]);
    given([created, { type: 'Archived', data: {} }])
      .when({ type: 'UnarchiveAsset', children: { action: 'cascade' } })
      .then([{ type: 'Unarchived', data: { children: { action: 'cascade' } } }]);
  });
  it('unarchiving an active asset is a no-op', () => given([created]).when({ type: 'UnarchiveAsset' }).then([]));
  it('unarchiving a deleted asset is a 409', () =>
    given([created, { type: 'Deleted', data: {} }])
      .when({ type: 'UnarchiveAsset' })
      .thenFails(409, 'ASSET.INVALID_STATE'));
  it('deletes softly, with the children decision', () =>
    given([created])
      .when({ type: 'DeleteAsset', children: { action: 'orphan' } })
      .then([{ type: 'Deleted', data: { children: { action: 'orphan' } } }]));
  it('deleting twice is a no-op', () =>
    given([created, { type: 'Deleted', data: {} }])
      .when({ type: 'DeleteAsset' })
      .then([]));
  it('delete of a missing asset is a 404', () => given([]).when({ type: 'DeleteAsset' }).thenFails(404, 'ASSET.NOT_FOUND'));
  it('moves to a category', () =>
    given([created])
      .when({ type: 'MoveAssetToCategory', idCategory: '1AbCdEfGhIjK' })
      .then([{ type: 'MovedToCategory', data: { idCategory: '1AbCdEfGhIjK' } }]));
  it('moving to the category it is in is a no-op', () => given([created]).when({ type: 'MoveAssetToCategory', idCategory: '' }).then([]));
  it('archive of a missing asset is a 404', () => given([]).when({ type: 'ArchiveAsset' }).thenFails(404, 'ASSET.NOT_FOUND'));
});

describe('asset evolve', () => {
  it('folds status and category changes into the record', () => {
    const state = foldAsset([
      created,
      { type: 'Archived', data: {} },
      { type: 'MovedToCategory', data: { idCategory: '1AbCdEfGhIjK' } },
      { type: 'Unarchived', data: {} },
      { type: 'Deleted', data: {} },
    ]);
    expect(state.record).toEqual(tag({ status: 'deleted', idCategory: '1AbCdEfGhIjK' }));
  });
  it('an update replaces the record', () => {
    expect(foldAsset([created, { type: 'Updated', data: { record: tag({ tagName: 'new', color: 'red' }) } }]).record).toEqual(
      tag({ tagName: 'new', color: 'red' }),
    );
  });
});
