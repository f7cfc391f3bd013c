import { generateAssetId } from '@funnel/contracts';
import type { FunnelAssets } from '@funnel/routing';
import { assetNames, nameIds } from './asset-names';
import { FUNNEL_ASSET_LISTS } from '@funnel/routing';
import { toFunnelAssets } from './funnel-assets';

const id = () => generateAssetId();
const idFunnel = id();
const idNode = id();
const idPage = id();
const idTag = id();
const otherTag = id();

function snapshot(): FunnelAssets {
  return toFunnelAssets(
    {
      idFunnel,
      idFunnelGroup: id(),
      funnelName: 'Spring sale',
      nodes: [{ idNode, nodeName: 'Quiz landers', nodeType: 'landerGroup', posX: 0, posY: 0, nodePageGroupParams: { idPageGroup: id() } }],
      connections: [],
    },
    {
      page: [{ idPage, pageName: 'Quiz A', pageType: 'lander' }],
      visitortag: [{ idTag, tagName: 'Buyer' }],
    },
  );
}

describe('naming the ids of a walk', () => {
  const names = assetNames(snapshot(), FUNNEL_ASSET_LISTS);

  it('puts the name of each known asset right after its id, at any depth', () => {
    const named = nameIds({ hits: [{ idNode, idPage, idFunnel, cost: '0' }] }, names);
    expect(named).toEqual({ hits: [{ idNode, nodeName: 'Quiz landers', idPage, pageName: 'Quiz A', idFunnel, funnelName: 'Spring sale', cost: '0' }] });
    expect(Object.keys(named.hits[0])).toEqual(['idNode', 'nodeName', 'idPage', 'pageName', 'idFunnel', 'funnelName', 'cost']);
  });

  it('names a list of ids by its ids parameter (idTags -> tagNames), null for an unknown one', () => {
    expect(nameIds({ type: 'tagsSet', idTags: [idTag, otherTag] }, names)).toEqual({ type: 'tagsSet', idTags: [idTag, otherTag], tagNames: ['Buyer', null] });
  });

  it('leaves an unknown id without a name and keeps a name that is already there', () => {
    const unknown = id();
    expect(nameIds({ idPage: unknown }, names)).toEqual({ idPage: unknown });
    expect(nameIds({ idNode, nodeName: 'as the engine named it' }, names)).toEqual({ idNode, nodeName: 'as the engine named it' });
  });

  it('never names inside maps keyed by client-chosen names (URL parameters, tracking fields, the request step)', () => {
    const value = { urlBuffer: { idPage }, trackingFields: { idNode }, step: { entrance: { idNode } } };
    expect(nameIds(value, names)).toEqual(value);
  });
});
