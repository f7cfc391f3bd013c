import { USER_SETTINGS_MAX_BYTES } from '@funnel/contracts';
import { Deployment, describeInBothModes } from './harness';

/** A settings object whose JSON text is exactly `bytes` UTF-8 bytes: `{"v":"…"}` is 8 bytes plus the string. */
const ofSize = (bytes: number) => ({ v: 'x'.repeat(bytes - 8) });

describeInBothModes('/v1/usersettings', (d) => {
  const call = (...args: Parameters<Deployment['api']['call']>) => d().api.call(...args);
  const read = async (key?: string) => {
    const res = await call('GET', '/usersettings/', { key });
    expect(res.status).toBe(200);
    return res.body;
  };
  const save = (body: unknown, key?: string) => call('POST', '/usersettings/save/', { body, key });

  it('answers {} while nothing is saved', async () => {
    const { apiKey } = await d().newAccount('empty@example.com');
    expect(await read(apiKey)).toEqual({});
  });

  it('saves (200, no body), reads it right away, and a save replaces the whole object', async () => {
    const first = { theme: 'dark', columns: ['name', 'status'], filters: { status: 'active' } };
    const saved = await save(first);
    expect(saved.status).toBe(200);
    expect(saved.text).toBe('');
    expect(await read()).toEqual(first);
    expect((await save({ density: 'compact' })).status).toBe(200);
    expect(await read()).toEqual({ density: 'compact' });
  });

  it('deletes (200, no body), idempotently, and answers {} afterwards', async () => {
    await save({ theme: 'dark' });
    const deleted = await call('DELETE', '/usersettings/delete/');
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
    expect(await read()).toEqual({});
    expect((await call('DELETE', '/usersettings/delete')).status).toBe(200);
    expect(await read()).toEqual({});
  });

  it('accepts exactly 64 KiB of JSON and refuses one byte more with 413, keeping what was saved', async () => {
    const atLimit = ofSize(USER_SETTINGS_MAX_BYTES);
    expect(Buffer.byteLength(JSON.stringify(atLimit))).toBe(65536);
    expect((await save(atLimit)).status).toBe(200);
    expect(await read()).toEqual(atLimit);
    const over = await save(ofSize(USER_SETTINGS_MAX_BYTES + 1));
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ code: 'SETTINGS.TOO_LARGE' });
    expect(await read()).toEqual(atLimit);
  });

  it.each([
    ['an array', JSON.stringify([1, 2])],
    ['a string', JSON.stringify('dark')],
    ['null', 'null'],
    ['a number', '42'],
  ])('refuses %s with 400 and stores nothing', async (_what, rawBody) => {
    await save({ kept: true });
    const res = await call('POST', '/usersettings/save/', { rawBody });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
    expect(await read()).toEqual({ kept: true });
  });

  it('refuses a save without a body with 400', async () => {
    const res = await call('POST', '/usersettings/save/');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'REQUEST.VALIDATION_FAILED' });
  });

  it("keeps each account's settings apart", async () => {
    await save({ owner: 'admin' });
    const other = await d().newAccount('other@example.com');
    expect(await read(other.apiKey)).toEqual({});
    expect((await save({ owner: 'other' }, other.apiKey)).status).toBe(200);
    expect(await read(other.apiKey)).toEqual({ owner: 'other' });
    expect(await read()).toEqual({ owner: 'admin' });
    expect((await call('DELETE', '/usersettings/delete/', { key: other.apiKey })).status).toBe(200);
    expect(await read()).toEqual({ owner: 'admin' });
  });

  it('keeps the settings across a restart', async () => {
    await save({ durable: true, nested: { list: [1, 'é', null] } });
    await d().stop();
    await d().restart();
    expect(await read()).toEqual({ durable: true, nested: { list: [1, 'é', null] } });
  });

  it('answers 401 without credentials', async () => {
    expect((await call('GET', '/usersettings/', { key: '' })).status).toBe(401);
    expect((await call('POST', '/usersettings/save/', { body: { a: 1 }, key: '' })).status).toBe(401);
    expect((await call('DELETE', '/usersettings/delete/', { key: '' })).status).toBe(401);
  });
});
