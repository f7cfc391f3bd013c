import { CAMPAIGN_FIELD_NAMES, FUNNEL_GROUP_KIND, ServiceError } from '@funnel/contracts';
import { renameAnswer, renameError, renameFields, renameRequestBody, renamesOf } from './field-renames';
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
    expect(renameAnswer([{ idFunnelGroup: 'a', funnelGroupName: 'b', funnels }], campaign)).toEqual([{ idCampaign: 'a', campaignName: 'b', funnels }]);
    expect(renameAnswer(undefined, campaign)).toBeUndefined();
    expect(renameFields([1, 2], campaign.request)).toEqual([1, 2]);
  });

  it("renames the first segment of each change's path in a history answer, and none of the entries' own fields", () => {
    const history = renamesOf(CAMPAIGN_FIELD_NAMES, 'history');
    const entry = (paths: string[]) => ({ revision: 1, type: 'FunnelGroupUpdated', changes: paths.map((path) => ({ path, from: null, to: 'x' })) });
    const answer = [entry(['funnelGroupName', 'trackingUrlParams.funnelGroupName', 'meta.idFunnelGroup', 'funnelGroupNameX']), entry(['idFunnelGroup'])];
    expect(renameAnswer(answer, history)).toEqual([
      entry(['campaignName', 'trackingUrlParams.funnelGroupName', 'meta.idFunnelGroup', 'funnelGroupNameX']),
      entry(['idCampaign']),
    ]);
    expect(history.answer).toBeUndefined();
    expect(renameAnswer({ not: 'a list' }, history)).toEqual({ not: 'a list' });
  });

  it('renames inside the body fields that hold record fields (a duplicate bodyUpdates), not inside maps of the client keys', () => {
    const duplicate = renamesOf(CAMPAIGN_FIELD_NAMES, 'duplicate');
    const body = { name: 'copy', bodyUpdates: { campaignName: 'x', trackingUrlParams: { campaignName: 'kept' } }, meta: { idCampaign: 'kept' } };
    expect(renameRequestBody(body, duplicate)).toEqual({
      name: 'copy',
      bodyUpdates: { funnelGroupName: 'x', trackingUrlParams: { campaignName: 'kept' } },
      meta: { idCampaign: 'kept' },
    });
    expect(body.bodyUpdates).toEqual({ campaignName: 'x', trackingUrlParams: { campaignName: 'kept' } });
    expect(renameRequestBody({ bodyUpdates: 'not an object' }, duplicate)).toEqual({ bodyUpdates: 'not an object' });
    expect(renameRequestBody({ bodyUpdates: { campaignName: 'x' } }, campaign)).toEqual({ bodyUpdates: { campaignName: 'x' } });
    expect(renameRequestBody(undefined, duplicate)).toBeUndefined();
  });

  it("names an error's fields as the view does: the message, each detail's path and message, whole names only", () => {
    const error = new ServiceError(400, 'REQUEST.VALIDATION_FAILED', 'invalid body: funnelGroupName must be longer than or equal to 1 characters', [
      { field: 'funnelGroupName', code: 'isLength', message: 'funnelGroupName must be longer than or equal to 1 characters' },
      { field: 'bodyUpdates.idFunnelGroup', code: 'isAssetId', message: 'bodyUpdates.idFunnelGroup must be a valid id' },
      { field: 'idFunnelGroups', code: 'isAssetId', message: 'idFunnelGroups[2] is not an id; funnelgroup X not found' },
    ]);
    const renamed = renameError(error, campaign.errors);
    expect(renamed).toBeInstanceOf(ServiceError);
    expect(renamed.toJSON()).toEqual({
      status: 400,
      code: 'REQUEST.VALIDATION_FAILED',
      message: 'invalid body: campaignName must be longer than or equal to 1 characters',
      details: [
        { field: 'campaignName', code: 'isLength', message: 'campaignName must be longer than or equal to 1 characters' },
        { field: 'bodyUpdates.idCampaign', code: 'isAssetId', message: 'bodyUpdates.idCampaign must be a valid id' },
        { field: 'idCampaigns', code: 'isAssetId', message: 'idCampaigns[2] is not an id; funnelgroup X not found' },
      ],
    });
    expect(renameError(error, undefined)).toBe(error);
  });

  it("serves a kind's view under its own paths with its operations: the legacy campaign save answers nothing and has no unarchive", () => {
    const routes = assetRoutes([FUNNEL_GROUP_KIND]);
    const at = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path);
    expect(at('POST', '/campaign/save')).toMatchObject({ subject: 'assets.funnelgroup.create', noAnswer: true, renames: campaign });
    expect(at('POST', '/campaign/duplicate')?.renames).toEqual({ ...campaign, nested: ['bodyUpdates'] });
    expect(at('PUT', '/campaign/unarchive')).toBeUndefined();
    expect(at('PUT', '/funnelgroup/unarchive')).toBeDefined();
    expect(at('POST', '/funnelgroup/save')?.renames).toBeUndefined();
    expect(at('GET', '/funnelgroup/find/byStatus')?.renames).toEqual({ answer: campaign.answer });
    expect(at('GET', '/funnelgroup/list')?.renames).toBeUndefined();
  });
});
