import { CAMPAIGN_FIELD_NAMES, FUNNEL_GROUP_KIND } from '@funnel/contracts';
import { renameAnswer, renameFields, renamesOf } from './field-renames';
import { assetRoutes } from './route-table';

describe('field-renaming views', () => {
  const campaign = renamesOf(CAMPAIGN_FIELD_NAMES);

  it('renames a request from the view names and an answer to them, top-level fields only', () => {
    expect(renameFields({ idCampaign: 'a', campaignName: 'b', status: 'active' }, campaign.request)).toEqual({
      idFunnelGroup: 'a',
      funnelGroupName: 'b',
      status: 'active',
    });
    const funnels = [{ idFunnel: 'f', idFunnelGroup: 'a', funnelGroupName: 'b' }];
    expect(renameAnswer([{ idFunnelGroup: 'a', funnelGroupName: 'b', funnels }], campaign.answer)).toEqual([{ idCampaign: 'a', campaignName: 'b', funnels }]);
    expect(renameAnswer(undefined, campaign.answer)).toBeUndefined();
    expect(renameFields([1, 2], campaign.request)).toEqual([1, 2]);
  });

  it("serves a kind's view under its own paths with its operations: the legacy campaign save answers nothing and has no unarchive", () => {
    const routes = assetRoutes([FUNNEL_GROUP_KIND]);
    const at = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path);
    expect(at('POST', '/campaign/save')).toMatchObject({ subject: 'assets.funnelgroup.create', noAnswer: true, renames: campaign });
    expect(at('PUT', '/campaign/unarchive')).toBeUndefined();
    expect(at('PUT', '/funnelgroup/unarchive')).toBeDefined();
    expect(at('POST', '/funnelgroup/save')?.renames).toBeUndefined();
    expect(at('GET', '/funnelgroup/find/byStatus')?.renames).toEqual({ answer: campaign.answer });
    expect(at('GET', '/funnelgroup/list')?.renames).toBeUndefined();
  });
});
