import { createHash } from 'node:crypto';
import { generateAssetId } from '@funnel/contracts';
import { Deployment, describeInBothModes } from './harness';

const newId = () => generateAssetId();
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const GEO = `if country == "US" {
  return "us"
}
return "default"
`;
const DEVICE = `switch deviceType {
case "mobile":
  return "mobile"
}
return "default"
`;
const script = (over: Record<string, unknown> = {}) => ({ idLogicScript: newId(), logicScriptName: 'Geo split', code: GEO, ...over });
const aiSetting = (over: Record<string, unknown> = {}) => ({
  funnelId: newId(),
  segmentBy: 'trafficSource',
  routingGoal: 'bestNextPage',
  lookbackWindow: 168,
  updateFrequency: 24,
  ...over,
});
const SLIM_KEYS = ['categoryName', 'codeHash', 'idCategory', 'idLogicScript', 'logicScriptName', 'routeKeys', 'status'];

describeInBothModes('/v1 logic scripts and AI node settings', (d) => {
  const call = (...args: Parameters<Deployment['api']['call']>) => d().api.call(...args);
  const saveScript = async (over: Record<string, unknown> = {}, key?: string) => {
    const body = script(over);
    const res = await call('POST', '/logicscript/save/', { body, key });
    expect(res.body).toBeUndefined();
    expect(res.status).toBe(200);
    return body;
  };
  const getScript = (id: string, key?: string) => call('GET', `/logicscript/find/byId/?idLogicScript=${id}`, { key });
  const createCategory = async (categoryType: string) => {
    const body = { idCategory: newId(), categoryName: `Scripts ${newId()}`, categoryType };
    expect((await call('POST', '/category/save/', { body })).status).toBe(200);
    return body;
  };

  it('answers 401 without a key on every family route', async () => {
    for (const [method, path] of [
      ['GET', '/logicscript/list/?status=all'],
      ['GET', '/logicscript/find/byName/?name=x'],
      ['POST', '/logicscript/save/'],
      ['POST', '/logicscripts/evaluate'],
      ['POST', '/ainodesetting/save'],
      ['PUT', '/ainodesetting/save'],
      ['GET', `/ainodesetting/find/byId?idAINodeSetting=${newId()}`],
      ['GET', `/ainodesetting/find/byIds/?idAINodeSettings=${newId()}`],
      ['DELETE', '/ainodesetting/delete'],
    ]) {
      expect({ method, path, status: (await call(method, path, { key: '', body: method === 'GET' ? undefined : {} })).status }).toEqual({
        method,
        path,
        status: 401,
      });
    }
  });

  describe('logic scripts', () => {
    it('saves a script with its codeHash and routeKeys set by the service (values sent for them ignored) and a trimmed name', async () => {
      const body = await saveScript({ logicScriptName: '  Geo split  ', description: 'US first', codeHash: 'forged', routeKeys: ['forged'] });
      const found = await getScript(body.idLogicScript);
      expect(found.status).toBe(200);
      expect(found.body).toEqual({
        idLogicScript: body.idLogicScript,
        logicScriptName: 'Geo split',
        description: 'US first',
        code: GEO,
        codeHash: sha256(GEO),
        routeKeys: ['us', 'default'],
        status: 'active',
        idCategory: '',
        categoryName: '',
        owner: expect.any(String),
      });
    });

    it('refuses an invalid script with 400 SCRIPT.INVALID, the diagnostics as details, and stores nothing', async () => {
      const body = script({ code: 'return "a"\nfor {\n}\n' });
      const res = await call('POST', '/logicscript/save/', { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('SCRIPT.INVALID');
      expect(res.body.details).toContainEqual({ field: 'code', code: 'FORBIDDEN_LOOP', line: 2, column: 1, message: expect.any(String) });
      expect((await getScript(body.idLogicScript)).status).toBe(404);

      const tooLarge = await call('POST', '/logicscript/save/', { body: script({ code: `return "default"\n//${'x'.repeat(10_240)}` }) });
      expect(tooLarge.status).toBe(400);
      expect(tooLarge.body).toMatchObject({ code: 'SCRIPT.INVALID', details: [{ field: 'code', code: 'CODE_TOO_LARGE', line: 1, column: 1 }] });

      // An update with invalid code keeps the stored script.
      const saved = await saveScript();
      expect((await call('PUT', '/logicscript/save/', { body: { ...saved, code: 'return 42' } })).body.code).toBe('SCRIPT.INVALID');
      expect((await getScript(saved.idLogicScript)).body.code).toBe(GEO);
    });

    it.each([
      ['a blank name', { logicScriptName: '   ' }, 'logicScriptName'],
      ['a 257-character name', { logicScriptName: 'x'.repeat(257) }, 'logicScriptName'],
      ['a missing code', { code: undefined }, 'code'],
      ['a 4097-character description', { description: 'd'.repeat(4097) }, 'description'],
    ])('refuses %s with 400 REQUEST.VALIDATION_FAILED', async (_what, over, field) => {
      const body = script(over);
      const res = await call('POST', '/logicscript/save/', { body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('REQUEST.VALIDATION_FAILED');
      expect(res.body.details[0].field).toBe(field);
      expect((await getScript(body.idLogicScript)).status).toBe(404);
    });

    it('updates code with PUT: codeHash and routeKeys follow', async () => {
      const body = await saveScript();
      expect((await call('PUT', '/logicscript/save/', { body: { ...body, code: DEVICE } })).status).toBe(200);
      expect((await getScript(body.idLogicScript)).body).toMatchObject({ code: DEVICE, codeHash: sha256(DEVICE), routeKeys: ['mobile', 'default'] });
    });

    it('lists and finds by status as slim records (LogicScriptInfo); status is required', async () => {
      const category = await createCategory('logicscript');
      const body = await saveScript({ idCategory: category.idCategory, description: 'not in the slim record' });
      expect((await call('GET', '/logicscript/list/')).status).toBe(400);
      for (const path of [
        '/logicscript/list/?status=active',
        `/logicscript/list/?status=active&idCategory=${category.idCategory}`,
        '/logicscript/find/byStatus/?status=all',
      ]) {
        const res = await call('GET', path);
        expect(res.status).toBe(200);
        const slim = res.body.find((s: { idLogicScript: string }) => s.idLogicScript === body.idLogicScript);
        expect(Object.keys(slim).sort()).toEqual(SLIM_KEYS);
        expect(slim).toEqual({
          idLogicScript: body.idLogicScript,
          logicScriptName: 'Geo split',
          status: 'active',
          idCategory: category.idCategory,
          categoryName: category.categoryName,
          codeHash: sha256(GEO),
          routeKeys: ['us', 'default'],
        });
      }
    });

    it('finds by ids and by category (full records), and keeps scripts in logicscript categories only', async () => {
      const category = await createCategory('logicscript');
      const a = await saveScript({ idCategory: category.idCategory });
      const b = await saveScript();
      const byIds = await call('GET', `/logicscript/find/byIds/?idLogicScripts=${b.idLogicScript},${a.idLogicScript},${newId()}`);
      expect(byIds.body.map((s: { idLogicScript: string }) => s.idLogicScript)).toEqual([b.idLogicScript, a.idLogicScript]);
      const byCategory = await call('GET', `/logicscript/find/byCategory/?idCategory=${category.idCategory}`);
      expect(byCategory.body).toEqual([expect.objectContaining({ idLogicScript: a.idLogicScript, code: GEO, categoryName: category.categoryName })]);
      const wrongType = await createCategory('condition');
      const refused = await call('POST', '/logicscript/save/', { body: script({ idCategory: wrongType.idCategory }) });
      expect(refused.status).toBe(400);
      expect(refused.body.details[0]).toMatchObject({ field: 'idCategory', code: 'categoryType' });
    });

    it('finds by name: exact match, live scripts only, full records, the caller account only', async () => {
      const name = `Name ${newId()}`;
      const first = await saveScript({ logicScriptName: name });
      const second = await saveScript({ logicScriptName: name, code: DEVICE });
      const deleted = await saveScript({ logicScriptName: name });
      await saveScript({ logicScriptName: `${name} 2` });
      expect((await call('DELETE', '/logicscript/delete/', { body: { entries: [deleted.idLogicScript] } })).status).toBe(200);
      const other = await d().newAccount(`ls-other-${newId()}@example.com`);
      await saveScript({ logicScriptName: name }, other.apiKey);

      const res = await call('GET', `/logicscript/find/byName/?name=${encodeURIComponent(name)}`);
      expect(res.status).toBe(200);
      expect(res.body.map((s: { idLogicScript: string }) => s.idLogicScript).sort()).toEqual([first.idLogicScript, second.idLogicScript].sort());
      expect(res.body.find((s: { idLogicScript: string }) => s.idLogicScript === second.idLogicScript)).toMatchObject({
        code: DEVICE,
        owner: expect.any(String),
      });
      expect((await call('GET', `/logicscript/find/byName?name=${encodeURIComponent(name.toLowerCase())}`)).body).toEqual([]);
      expect((await call('GET', '/logicscript/find/byName/')).status).toBe(400);
    });

    it('duplicates honouring only idCategory, categoryName and description from bodyUpdates', async () => {
      const category = await createCategory('logicscript');
      const source = await saveScript({ description: 'original' });
      const res = await call('POST', `/logicscript/duplicate/?idLogicScript=${source.idLogicScript}`, {
        body: {
          name: 'Copy',
          bodyUpdates: {
            description: 'copied',
            idCategory: category.idCategory,
            code: DEVICE,
            logicScriptName: 'sneaky',
            codeHash: 'x',
            routeKeys: ['x'],
            status: 'archived',
          },
        },
      });
      expect(res.status).toBe(200);
      const copy = await getScript(res.body.id);
      expect(copy.body).toEqual({
        idLogicScript: res.body.id,
        logicScriptName: 'Copy',
        description: 'copied',
        code: GEO,
        codeHash: sha256(GEO),
        routeKeys: ['us', 'default'],
        status: 'active',
        idCategory: category.idCategory,
        categoryName: category.categoryName,
        owner: expect.any(String),
      });
    });

    it('archives, unarchives, moves to a category, and deletes softly', async () => {
      const body = await saveScript();
      const entries = { entries: [body.idLogicScript] };
      expect((await call('PUT', '/logicscript/archive/', { body: entries })).status).toBe(200);
      expect((await getScript(body.idLogicScript)).body.status).toBe('archived');
      expect((await call('PUT', '/logicscript/unarchive/', { body: entries })).status).toBe(200);
      const category = await createCategory('logicscript');
      expect((await call('PUT', '/logicscript/move-category/', { body: { ...entries, idCategory: category.idCategory } })).status).toBe(200);
      expect((await getScript(body.idLogicScript)).body).toMatchObject({ status: 'active', idCategory: category.idCategory });
      expect((await call('DELETE', '/logicscript/delete/', { body: entries })).status).toBe(200);
      expect((await getScript(body.idLogicScript)).status).toBe(404);
      const all = await call('GET', '/logicscript/list/?status=all');
      expect(all.body.find((s: { idLogicScript: string }) => s.idLogicScript === body.idLogicScript)).toMatchObject({ status: 'deleted' });
    });

    it("keeps accounts apart: another account's script is a 404 everywhere", async () => {
      const mine = await saveScript();
      const other = await d().newAccount(`ls-iso-${newId()}@example.com`);
      const as = { key: other.apiKey };
      expect((await getScript(mine.idLogicScript, other.apiKey)).status).toBe(404);
      expect((await call('GET', `/logicscript/find/byIds/?idLogicScripts=${mine.idLogicScript}`, as)).body).toEqual([]);
      expect((await call('PUT', '/logicscript/save/', { ...as, body: { ...mine, code: DEVICE } })).status).toBe(404);
      expect((await call('POST', `/logicscript/duplicate/?idLogicScript=${mine.idLogicScript}`, { ...as, body: { name: 'x' } })).status).toBe(404);
      expect((await call('DELETE', '/logicscript/delete/', { ...as, body: { entries: [mine.idLogicScript] } })).status).toBe(404);
      expect((await getScript(mine.idLogicScript)).body.code).toBe(GEO);
    });

    it("evaluates a saved script by idLogicScript; unknown, deleted and other accounts' scripts are 404s", async () => {
      const body = await saveScript();
      const visitor = { visitor: { country: 'US' }, time: '2026-03-02T15:30:00Z' };
      const res = await call('POST', '/logicscripts/evaluate', { body: { idLogicScript: body.idLogicScript, ...visitor } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ routeKey: 'us', fallback: false, valid: true });
      const elsewhere = await call('POST', '/logicscripts/evaluate/', { body: { idLogicScript: body.idLogicScript, visitor: { country: 'DE' } } });
      expect(elsewhere.body).toMatchObject({ routeKey: 'default' });

      const other = await d().newAccount(`ls-eval-${newId()}@example.com`);
      const foreign = await call('POST', '/logicscripts/evaluate', { key: other.apiKey, body: { idLogicScript: body.idLogicScript, ...visitor } });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('ASSET.NOT_FOUND');
      expect((await call('POST', '/logicscripts/evaluate', { body: { idLogicScript: newId(), ...visitor } })).status).toBe(404);
      await call('DELETE', '/logicscript/delete/', { body: { entries: [body.idLogicScript] } });
      expect((await call('POST', '/logicscripts/evaluate', { body: { idLogicScript: body.idLogicScript, ...visitor } })).status).toBe(404);

      const both = await call('POST', '/logicscripts/evaluate', { body: { idLogicScript: newId(), code: GEO, ...visitor } });
      expect(both.status).toBe(400);
      expect((await call('POST', '/logicscripts/evaluate', { body: { idLogicScript: 'not-an-id', ...visitor } })).body.code).toBe('REQUEST.INVALID_ID');
    });
  });

  describe('AI node settings', () => {
    const find = (id: string, key?: string) => call('GET', `/ainodesetting/find/byId?idAINodeSetting=${id}`, { key });

    it('saves without an id: the service generates one and answers { idAINodeSetting }', async () => {
      const body = aiSetting({
        aiNodeSettingName: 'Pages by source',
        eventType: 'customEvent3',
        model: 'revenuePerView',
        calculationParams: { minimumPercentagePerVariant: 5, explorationRate: 0.1 },
      });
      const res = await call('POST', '/ainodesetting/save', { body });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['idAINodeSetting']);
      const found = await find(res.body.idAINodeSetting);
      expect(found.status).toBe(200);
      expect(found.body).toEqual({ ...body, idAINodeSetting: res.body.idAINodeSetting, status: 'active', idCategory: '', owner: expect.any(String) });
      expect((await call('GET', `/ainodesetting/find/byId/?idAINodeSetting=${res.body.idAINodeSetting}`)).body).toEqual(found.body);
    });

    it('saves with an id (no body) and updates with POST or PUT; the funnel need not exist yet', async () => {
      const id = newId();
      const created = await call('PUT', '/ainodesetting/save/', { body: aiSetting({ idAINodeSetting: id, nodeId: newId() }) });
      expect(created.status).toBe(200);
      expect(created.body).toBeUndefined();
      const updated = await call('POST', '/ainodesetting/save', {
        body: aiSetting({ idAINodeSetting: id, lookbackWindow: 8760, updateFrequency: 720, segmentBy: 'default' }),
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toBeUndefined();
      expect((await find(id)).body).toMatchObject({ idAINodeSetting: id, lookbackWindow: 8760, updateFrequency: 720, segmentBy: 'default' });
      expect((await find(id)).body.nodeId).toBeUndefined();
      expect((await call('PUT', '/ainodesetting/save', { body: aiSetting({ idAINodeSetting: id, lookbackWindow: 1 }) })).status).toBe(200);
      expect((await find(id)).body.lookbackWindow).toBe(1);
      // If-Match on an upsert: the current revision updates; an id that does not exist matches no revision (412, nothing created).
      const etag = (await find(id)).headers.get('etag')!;
      expect(
        (await call('PUT', '/ainodesetting/save/', { body: aiSetting({ idAINodeSetting: id, lookbackWindow: 2 }), headers: { 'if-match': etag } })).status,
      ).toBe(200);
      const missing = newId();
      const refused = await call('PUT', '/ainodesetting/save/', { body: aiSetting({ idAINodeSetting: missing }), headers: { 'if-match': 'W/"0"' } });
      expect([refused.status, refused.body.code]).toEqual([412, 'ASSET.REVISION_MISMATCH']);
      expect((await find(missing)).status).toBe(404);
    });

    it.each([
      ['lookbackWindow 0', { lookbackWindow: 0 }, 'lookbackWindow'],
      ['lookbackWindow 8761', { lookbackWindow: 8761 }, 'lookbackWindow'],
      ['a fractional lookbackWindow', { lookbackWindow: 1.5 }, 'lookbackWindow'],
      ['updateFrequency 721', { updateFrequency: 721 }, 'updateFrequency'],
      ['a malformed funnelId', { funnelId: 'funnel-1' }, 'funnelId'],
      ['a missing funnelId', { funnelId: undefined }, 'funnelId'],
      ['a malformed nodeId', { nodeId: 'node' }, 'nodeId'],
      ['an unknown segmentBy', { segmentBy: 'country' }, 'segmentBy'],
      ['an unknown routingGoal', { routingGoal: 'best' }, 'routingGoal'],
      ['an unknown eventType', { eventType: 'customEvent8' }, 'eventType'],
      ['an unknown model', { model: 'magic' }, 'model'],
      ['minimumPercentagePerVariant 101', { calculationParams: { minimumPercentagePerVariant: 101 } }, 'calculationParams.minimumPercentagePerVariant'],
      ['a non-numeric parameter', { calculationParams: { minimumPercentagePerVariant: 1, label: 'x' } }, 'calculationParams.label'],
      [
        '21 parameters',
        { calculationParams: Object.fromEntries([['minimumPercentagePerVariant', 1], ...Array.from({ length: 20 }, (_, i) => [`p${i}`, i])]) },
        'calculationParams',
      ],
      ['a 257-character name', { aiNodeSettingName: 'x'.repeat(257) }, 'aiNodeSettingName'],
    ])('refuses %s with a 400 naming the field, and stores nothing', async (_what, over, field) => {
      const id = newId();
      const res = await call('POST', '/ainodesetting/save', { body: aiSetting({ idAINodeSetting: id, ...over }) });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('REQUEST.VALIDATION_FAILED');
      expect(res.body.details[0].field).toBe(field);
      expect((await find(id)).status).toBe(404);
    });

    it('finds by ids (with and without trailing slash) and deletes softly with a StringList', async () => {
      const ids = [newId(), newId(), newId()];
      for (const id of ids) expect((await call('POST', '/ainodesetting/save', { body: aiSetting({ idAINodeSetting: id }) })).status).toBe(200);
      for (const path of ['/ainodesetting/find/byIds/', '/ainodesetting/find/byIds']) {
        const res = await call('GET', `${path}?idAINodeSettings=${ids[2]},${ids[0]},${newId()}`);
        expect(res.status).toBe(200);
        expect(res.body.map((s: { idAINodeSetting: string }) => s.idAINodeSetting)).toEqual([ids[2], ids[0]]);
      }
      expect((await call('DELETE', '/ainodesetting/delete', { body: { entries: [ids[0]] } })).status).toBe(200);
      expect((await call('DELETE', '/ainodesetting/delete/', { body: { entries: [ids[1]] } })).status).toBe(200);
      expect((await find(ids[0])).status).toBe(404);
      expect((await find(ids[1])).status).toBe(404);
      expect(
        (await call('GET', `/ainodesetting/find/byIds/?idAINodeSettings=${ids.join(',')}`)).body.map((s: { idAINodeSetting: string }) => s.idAINodeSetting),
      ).toEqual([ids[2]]);
      expect((await call('DELETE', '/ainodesetting/delete', { body: { entries: ['bad'] } })).status).toBe(400);
      expect((await call('GET', '/ainodesetting/list/?status=all')).status).toBe(404);
    });

    it("keeps accounts apart: another account's setting is a 404, and its own save with that id leaves ours alone", async () => {
      const id = newId();
      expect((await call('POST', '/ainodesetting/save', { body: aiSetting({ idAINodeSetting: id, lookbackWindow: 48 }) })).status).toBe(200);
      const other = await d().newAccount(`ai-iso-${newId()}@example.com`);
      expect((await find(id, other.apiKey)).status).toBe(404);
      expect((await call('GET', `/ainodesetting/find/byIds/?idAINodeSettings=${id}`, { key: other.apiKey })).body).toEqual([]);
      expect((await call('DELETE', '/ainodesetting/delete', { key: other.apiKey, body: { entries: [id] } })).status).toBe(404);
      expect((await call('POST', '/ainodesetting/save', { key: other.apiKey, body: aiSetting({ idAINodeSetting: id, lookbackWindow: 2 }) })).status).toBe(200);
      expect((await find(id)).body.lookbackWindow).toBe(48);
      expect((await find(id, other.apiKey)).body.lookbackWindow).toBe(2);
    });
  });
});
