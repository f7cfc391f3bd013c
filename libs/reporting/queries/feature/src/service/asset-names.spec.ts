import type { CallerContext, RpcRequest } from '@funnel/contracts';
import type { ServiceClient } from '@funnel/platform';
import { assetNamesOverBus } from './asset-names';

const context: CallerContext = { accountId: 'acct1', userId: 'u1', permissions: ['reporting:read'], correlationId: 'c1' };

/** A fake assets-service: records each request and answers find/byIds from `records` of the caller's account. */
function fakeAssets(records: Record<string, Record<string, unknown>[]>) {
  const calls: { subject: string; payload: RpcRequest }[] = [];
  const client = {
    async request<T>(subject: string, payload: RpcRequest): Promise<T> {
      calls.push({ subject, payload });
      const kind = subject.split('.')[1];
      const query = (payload.body as { query: Record<string, string> }).query;
      const ids = Object.values(query)[0].split(',');
      const found = payload.context?.accountId === 'acct1' ? (records[kind] ?? []).filter((r) => ids.includes(String(Object.values(r)[0]))) : [];
      return { result: found } as T;
    },
  } as unknown as ServiceClient;
  return { client, calls };
}

describe('asset names over the service bus', () => {
  it('asks find/byIds once per kind with the caller’s account, names nodes from their funnels, leaves unknown ids unnamed', async () => {
    const { client, calls } = fakeAssets({
      trafficsource: [{ idTrafficSource: 'srcA00000001', trafficSourceName: 'Push Network' }],
      funnel: [{ idFunnel: 'fnlA00000001', funnelName: 'Spring', nodes: [{ idNode: 'nodeA0000001', nodeName: 'Landers' }] }],
    });
    const names = await assetNamesOverBus(client).names(context, [
      { names: { kind: 'asset', assetKind: 'trafficsource' }, id: 'srcA00000001' },
      { names: { kind: 'asset', assetKind: 'trafficsource' }, id: 'srcB00000002' },
      { names: { kind: 'asset', assetKind: 'trafficsource' }, id: 'organic' },
      { names: { kind: 'funnelNode' }, id: 'nodeA0000001', context: 'fnlA00000001' },
    ]);
    expect(names({ names: { kind: 'asset', assetKind: 'trafficsource' }, id: 'srcA00000001' })).toBe('Push Network');
    expect(names({ names: { kind: 'asset', assetKind: 'trafficsource' }, id: 'srcB00000002' })).toBeUndefined();
    expect(names({ names: { kind: 'funnelNode' }, id: 'nodeA0000001', context: 'fnlA00000001' })).toBe('Landers');
    expect(calls.map((call) => call.subject).sort()).toEqual(['assets.funnel.findByIds', 'assets.trafficsource.findByIds']);
    expect(calls.every((call) => call.payload.context?.accountId === 'acct1')).toBe(true);
    // 'organic' is no asset id: not asked for, shown as is.
    const sourceCall = calls.find((call) => call.subject === 'assets.trafficsource.findByIds')!;
    expect((sourceCall.payload.body as { query: Record<string, string> }).query).toEqual({ idTrafficSources: 'srcA00000001,srcB00000002' });
  });

  it('reads a traffic source’s tracking-field names', async () => {
    const { client } = fakeAssets({ trafficsource: [{ idTrafficSource: 'srcA00000001', trackingFieldSlots: { c1: { name: 'zoneid' } } }] });
    await expect(assetNamesOverBus(client).trackingFieldNames(context, 'srcA00000001')).resolves.toEqual({ c1: { name: 'zoneid' } });
  });
});
