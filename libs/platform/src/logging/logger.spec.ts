import { captureLogs } from './log-capture';
import { PinoNestLogger } from './nest-logger';

describe('createLogger', () => {
  it('writes JSON lines with name, level label and message', () => {
    const logs = captureLogs('assets-service', 'info');
    logs.logger.info({ subject: 'assets.visitortag.findById' }, 'handled');
    logs.logger.debug('below the level');
    expect(logs.entries).toEqual([expect.objectContaining({ name: 'assets-service', level: 'info', msg: 'handled', subject: 'assets.visitortag.findById' })]);
    expect(logs.text().endsWith('\n')).toBe(true);
  });

  it('redacts secret fields at the top level and nested', () => {
    const logs = captureLogs();
    logs.logger.info(
      {
        password: 'p1',
        apiKey: 'k1',
        user: { token: 't1', refresh_token: 'r1', name: 'ada' },
        req: { headers: { authorization: 'Bearer abc', cookie: 'sid=1', 'x-api-key': 'xk', accept: 'json' } },
        body: { secret: 's1', access_token: 'a1', key: 'k2' },
      },
      'login',
    );
    const text = logs.text();
    for (const secret of ['p1', 'k1', 't1', 'r1', 'Bearer abc', 'sid=1', 'xk', 's1', 'a1', 'k2']) expect(text).not.toContain(`"${secret}"`);
    expect(logs.entries[0]).toMatchObject({
      password: '[redacted]',
      user: { token: '[redacted]', name: 'ada' },
      req: { headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', accept: 'json' } },
    });
  });

  it('serializes errors with type, message and stack', () => {
    const logs = captureLogs();
    logs.logger.error({ err: new TypeError('bad input') }, 'failed');
    expect(logs.entries[0]['err']).toMatchObject({ type: 'TypeError', message: 'bad input', stack: expect.stringContaining('TypeError') });
  });
});

describe('PinoNestLogger', () => {
  it("maps Nest's levels and context onto pino", () => {
    const logs = captureLogs();
    const nest = new PinoNestLogger(logs.logger);
    nest.log('Mapped {/v1/assets, GET} route', 'RouterExplorer');
    nest.warn('slow', 'Bootstrap');
    nest.verbose('details', 'Injector');
    nest.error('Handler failed', 'Error: boom\n    at x', 'RpcProxy');
    nest.error(new Error('plain'));
    expect(logs.entries.map(({ level, msg, context }) => ({ level, msg, context }))).toEqual([
      { level: 'info', msg: 'Mapped {/v1/assets, GET} route', context: 'RouterExplorer' },
      { level: 'warn', msg: 'slow', context: 'Bootstrap' },
      { level: 'trace', msg: 'details', context: 'Injector' },
      { level: 'error', msg: 'Handler failed', context: 'RpcProxy' },
      { level: 'error', msg: 'plain', context: undefined },
    ]);
    expect(logs.entries[3]['stack']).toContain('Error: boom');
  });
});
