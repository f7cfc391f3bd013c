import { isValidAssetId } from '@funnel/contracts';
import fc from 'fast-check';
import { duplicateFunnel } from './funnel-duplicate';
import { checkFunnelGraph } from './funnel-graph';
import { funnelReferences, nodeAssetIds } from './funnel-references';
import { IDS, drawFunnel, id, idOf, validFunnel } from './funnel.fixtures';
import type { FunnelRecord, PageGroupNode } from './funnel-types';

/**
 * The graph's shape, written independently of duplicateFunnel: nodes without their ids (asset ids
 * through the map), connections with their ends as node positions instead of ids.
 */
function shapeOf(funnel: FunnelRecord, idMap: ReadonlyMap<string, string> = new Map()) {
  const position = new Map(funnel.nodes.map((node, i) => [node.idNode, i]));
  const mapped = (value: unknown) => JSON.parse(JSON.stringify(value, (_, v) => (typeof v === 'string' && idMap.has(v) ? idMap.get(v) : v)));
  return {
    nodes: funnel.nodes.map(({ idNode: _id, ...rest }) => mapped(rest)),
    connections: funnel.connections.map(({ idConnection: _id, idSourceNode, idTargetNode, ...params }) => ({
      source: position.get(idSourceNode),
      target: position.get(idTargetNode),
      ...params,
    })),
  };
}

/** Every id a funnel uses: its own, its nodes', its connections', and the asset ids it references. */
function idsOf(funnel: FunnelRecord): Set<string> {
  return new Set([
    funnel.idFunnel,
    ...funnel.nodes.map((node) => node.idNode),
    ...funnel.connections.map((connection) => connection.idConnection),
    ...funnelReferences(funnel).map((reference) => reference.id),
  ]);
}

describe('duplicateFunnel', () => {
  it('given the funnel and copies of its local page group and condition, when duplicated, then the copy has new ids, its references re-pointed, and the same graph', () => {
    const source = validFunnel();
    const before = structuredClone(source);
    const idMap = new Map([
      [IDS.landers, id('pgLandCopy')],
      [IDS.condition, id('condCopy')],
    ]);
    const copy = duplicateFunnel(source, id('funnelCopy'), idMap);

    expect(source).toEqual(before);
    expect(copy.idFunnel).toBe(id('funnelCopy'));
    expect((copy.nodes[2] as PageGroupNode).nodePageGroupParams).toEqual({
      ...(source.nodes[2] as PageGroupNode).nodePageGroupParams,
      idPageGroup: id('pgLandCopy'),
    });
    expect(copy.nodes[3]).toMatchObject({ nodeConditionParams: { idCondition: id('condCopy') } });
    expect(copy.nodes[4]).toMatchObject({ nodePageGroupParams: { idPageGroup: IDS.offers } });
    expect(shapeOf(copy)).toEqual(shapeOf(source, idMap));
    const outsideGraph = ({ nodes: _nodes, connections: _connections, idFunnel: _idFunnel, ...rest }: FunnelRecord) => rest;
    expect(outsideGraph(copy)).toEqual(outsideGraph(source));
    for (const node of copy.nodes) expect(idsOf(source).has(node.idNode)).toBe(false);
    expect(checkFunnelGraph(copy)).toEqual([]);
  });

  it('given an id source that repeats ids the funnel already uses, when duplicated, then those are skipped', () => {
    const source = validFunnel();
    const taken = [source.nodes[0].idNode, IDS.landers, id('funnelCopy'), source.connections[0].idConnection];
    let fresh = 0;
    const newId = () => (fresh % 2 === 0 && fresh / 2 < taken.length ? taken[fresh++ / 2] : id(`new${fresh++}`));
    const copy = duplicateFunnel(source, id('funnelCopy'), new Map(), newId);
    const copyIds = [...copy.nodes.map((node) => node.idNode), ...copy.connections.map((connection) => connection.idConnection)];
    expect(copyIds.filter((value) => taken.includes(value))).toEqual([]);
    expect(new Set(copyIds).size).toBe(copyIds.length);
  });

  it('given any valid funnel and copies of some of its page groups and conditions, when duplicated, then the shape is kept exactly and every id is new', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const source = drawFunnel(g);
        const before = structuredClone(source);
        const local = [
          ...new Set(
            source.nodes.flatMap((node) =>
              nodeAssetIds(node)
                .filter((ref) => ref.funnelLocal)
                .map((ref) => ref.id),
            ),
          ),
        ];
        const copied = local.filter(() => g(fc.boolean));
        const newIds: string[] = g(() => fc.uniqueArray(idOf('X'), { minLength: copied.length, maxLength: copied.length }));
        const idMap = new Map(copied.map((old, k) => [old, newIds[k]]));
        const newFunnelId = g(idOf, 'Y');

        const copy = duplicateFunnel(source, newFunnelId, idMap);

        expect(source).toEqual(before);
        expect(copy.idFunnel).toBe(newFunnelId);
        expect(shapeOf(copy)).toEqual(shapeOf(source, idMap));
        const fresh = [...copy.nodes.map((node) => node.idNode), ...copy.connections.map((connection) => connection.idConnection)];
        expect(fresh.every(isValidAssetId)).toBe(true);
        expect(new Set(fresh).size).toBe(fresh.length);
        const old = idsOf(source);
        expect(fresh.filter((value) => old.has(value) || value === newFunnelId || newIds.includes(value))).toEqual([]);
        expect(checkFunnelGraph(copy)).toEqual([]);
      }),
    );
  });
});
