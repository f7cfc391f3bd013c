import { ConfigError, bool, int, loadConfig, oneOf, port, string, url } from './config';
import { createLogger } from '../logging/logger';
import { runMain } from './run-main';

function configError(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  const spec = {
    PORT: port({ default: 3000 }),
    DATA_DIR: string({ default: './data' }),
    NATS_URL: url({ optional: true }),
    LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace'], { default: 'info' }),
    RPC_TIMEOUT_MS: int({ min: 100, max: 5000, default: 4000 }),
    METRICS_ENABLED: bool({ default: true }),
  };

  it('applies defaults when variables are unset or empty', () => {
    const config = loadConfig(spec, { PORT: '' });
    expect(config).toEqual({
      PORT: 3000,
      DATA_DIR: './data',
      NATS_URL: undefined,
      LOG_LEVEL: 'info',
      RPC_TIMEOUT_MS: 4000,
      METRICS_ENABLED: true,
    });
  });

  it('parses every type from the environment', () => {
    const config = loadConfig(spec, {
      PORT: '8080',
      DATA_DIR: '/var/lib/funnel',
      NATS_URL: 'nats://nats:4222',
      LOG_LEVEL: 'debug',
      RPC_TIMEOUT_MS: '250',
      METRICS_ENABLED: 'no',
    });
    expect(config).toEqual({
      PORT: 8080,
      DATA_DIR: '/var/lib/funnel',
      NATS_URL: 'nats://nats:4222',
      LOG_LEVEL: 'debug',
      RPC_TIMEOUT_MS: 250,
      METRICS_ENABLED: false,
    });
  });

  it('types the result from the spec', () => {
    const config = loadConfig(spec, {});
    const portNumber: number = config.PORT;
    const natsUrl: string | undefined = config.NATS_URL;
    const level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' = config.LOG_LEVEL;
    expect([portNumber, natsUrl, level]).toEqual([3000, undefined, 'info']);
  });

  it.each([
    ['PORT', 'abc', 'Invalid configuration: PORT must be a port from 0 to 65535 (default 3000), got "abc"'],
    ['PORT', '70000', 'Invalid configuration: PORT must be a port from 0 to 65535 (default 3000), got "70000"'],
    ['PORT', '80.5', 'Invalid configuration: PORT must be a port from 0 to 65535 (default 3000), got "80.5"'],
    ['RPC_TIMEOUT_MS', '99', 'Invalid configuration: RPC_TIMEOUT_MS must be an integer from 100 to 5000 (default 4000), got "99"'],
    ['RPC_TIMEOUT_MS', '5001', 'Invalid configuration: RPC_TIMEOUT_MS must be an integer from 100 to 5000 (default 4000), got "5001"'],
    ['NATS_URL', 'not a url', 'Invalid configuration: NATS_URL must be a URL, got "not a url"'],
    ['LOG_LEVEL', 'loud', 'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace (default info), got "loud"'],
    ['METRICS_ENABLED', 'maybe', 'Invalid configuration: METRICS_ENABLED must be true or false (also 1/0, yes/no, on/off) (default true), got "maybe"'],
  ])('rejects %s=%s with one line naming variable, rule and value', (variable, value, line) => {
    const error = configError(() => loadConfig(spec, { [variable]: value }));
    expect(error.message).toBe(line);
    expect(error.variable).toBe(variable);
    expect(error.message).not.toContain('\n');
  });

  it('names a missing required variable and its rule', () => {
    const error = configError(() => loadConfig({ JWT_ISSUER: string() }, {}));
    expect(error.message).toBe('Invalid configuration: JWT_ISSUER is required: set it to a string');
  });

  it('keeps a value with a newline on one line', () => {
    const error = configError(() => loadConfig({ PORT: port() }, { PORT: '1\n2' }));
    expect(error.message).toBe('Invalid configuration: PORT must be a port from 0 to 65535, got "1\\n2"');
  });

  it('shortens very long values', () => {
    const error = configError(() => loadConfig({ PORT: port() }, { PORT: 'x'.repeat(500) }));
    expect(error.message).toContain(`got "${'x'.repeat(80)}..."`);
    expect(error.message.length).toBeLessThan(200);
  });

  it.each(['API_KEY', 'JWT_SECRET', 'DB_PASSWORD', 'ADMIN_TOKEN', 'signing_key'])('never echoes the value of %s', (variable) => {
    const error = configError(() => loadConfig({ [variable]: string({ minLength: 32 }) }, { [variable]: 'hunter2-short' }));
    expect(error.message).toBe(`Invalid configuration: ${variable} must be a string of at least 32 characters (value hidden: the name looks like a secret)`);
    expect(error.message).not.toContain('hunter2');
  });

  it('checks url schemes when asked', () => {
    const rule = { NATS_URL: url({ protocols: ['nats', 'tls'] }) };
    expect(loadConfig(rule, { NATS_URL: 'tls://nats:4222' }).NATS_URL).toBe('tls://nats:4222');
    expect(configError(() => loadConfig(rule, { NATS_URL: 'http://nats:4222' })).message).toBe(
      'Invalid configuration: NATS_URL must be a URL (nats://, tls://), got "http://nats:4222"',
    );
  });

  it('leaves optional values undefined and accepts bounds inclusively', () => {
    const config = loadConfig({ LIMIT: int({ optional: true, min: 1 }), WORKERS: int({ min: 1, max: 4 }) }, { WORKERS: '4' });
    expect(config).toEqual({ LIMIT: undefined, WORKERS: 4 });
    expect(configError(() => loadConfig({ LIMIT: int({ min: 1 }) }, { LIMIT: '0' })).message).toBe(
      'Invalid configuration: LIMIT must be an integer of at least 1, got "0"',
    );
  });

  it('reads process.env by default', () => {
    process.env['FUNNEL_TEST_ONLY_PORT'] = '1234';
    try {
      expect(loadConfig({ FUNNEL_TEST_ONLY_PORT: port() }).FUNNEL_TEST_ONLY_PORT).toBe(1234);
    } finally {
      delete process.env['FUNNEL_TEST_ONLY_PORT'];
    }
  });
});

describe('runMain', () => {
  it('prints the ConfigError line to stderr and exits 1', async () => {
    const lines: string[] = [];
    const exit = jest.fn();
    await runMain(async () => void loadConfig({ PORT: port() }, { PORT: 'x' }), { exit, writeError: (line) => lines.push(line) });
    expect(lines).toEqual(['Invalid configuration: PORT must be a port from 0 to 65535, got "x"']);
    expect(exit).toHaveBeenCalledWith(1);
  });

  it('logs any other startup failure and exits 1', async () => {
    const logged: string[] = [];
    const logger = createLogger('main', 'info', { destination: { write: (line: string) => void logged.push(line) } });
    const exit = jest.fn();
    const writeError = jest.fn();
    await runMain(() => Promise.reject(new Error('port in use')), { exit, logger, writeError });
    expect(exit).toHaveBeenCalledWith(1);
    expect(writeError).not.toHaveBeenCalled();
    expect(JSON.parse(logged[0])).toMatchObject({ level: 'fatal', msg: 'startup failed', err: { message: 'port in use' } });
  });

  it('does not exit when main succeeds', async () => {
    const exit = jest.fn();
    await runMain(async () => undefined, { exit });
    expect(exit).not.toHaveBeenCalled();
  });
});
