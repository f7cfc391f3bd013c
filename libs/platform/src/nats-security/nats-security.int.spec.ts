import { type NatsConnection, type NatsError, type Status, ErrorCode, connect } from 'nats';
import { type RunningNatsServer, startNatsServer } from '@funnel/testing';
import { captureLogs } from '../logging/log-capture';
import { LeanServerNats } from '../rpc/lean-server-nats';
import { type NatsAccess, natsAccessOptions, natsServerOptions } from '../rpc/nats-options';
import { NatsServiceClient } from '../rpc/nats-service-client';
import { DEFAULT_GATEWAY_INBOX_PREFIX, DEFAULT_SCRIPTS_INBOX_PREFIX, FUNNEL_NATS_LAYOUT, natsInboxPrefixOf } from './nats-apps';
import { SERVICE_RESPONSES } from './nats-permissions';
import { NATS_MAX_PAYLOAD_BYTES, natsAuthorizationConfig } from './nats-server-config';
import { createNatsUsers, currentNatsUser } from './nats-users';

/**
 * nats-server started with the configuration natsAuthorizationConfig generates for the funnel
 * apps: no one gets in without credentials, and each app can do only what its role needs.
 */
describe('secured NATS', () => {
  const users = createNatsUsers(FUNNEL_NATS_LAYOUT);
  let nats: RunningNatsServer;
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    nats = await startNatsServer({ config: natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, users), jetstream: false });
  });
  afterEach(async () => {
    await Promise.all(connections.splice(0).map((nc) => nc.close()));
  });
  afterAll(async () => {
    await nats.stop();
  });

  const accessOf = (app: string): NatsAccess => {
    const { user, password } = currentNatsUser(users, app);
    const inboxPrefix = natsInboxPrefixOf(FUNNEL_NATS_LAYOUT, app);
    return { user, password, ...(inboxPrefix ? { inboxPrefix } : {}) };
  };

  async function connectAs(app: string): Promise<NatsConnection> {
    const nc = await connect({ servers: nats.url, ...natsAccessOptions(accessOf(app)) });
    connections.push(nc);
    return nc;
  }

  /** The server's answer to subscribing: the subscription's error, or none (the subscription is then in place). */
  async function subscribeOutcome(nc: NatsConnection, subject: string, queue?: string): Promise<NatsError | null> {
    let refused: NatsError | null = null;
    nc.subscribe(subject, { queue, callback: (error) => (refused = refused ?? error) });
    await nc.flush(); // the server handles SUB before the PING of flush, and reports a violation before the PONG
    return refused;
  }

  /** Publishes and resolves with the server's permission violation for it. */
  async function publishViolation(nc: NatsConnection, subject: string): Promise<Status> {
    const violation = (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'error' && status.permissionContext?.subject === subject) return status;
      }
      throw new Error('connection closed without a permission violation');
    })();
    nc.publish(subject, new TextEncoder().encode('{}'));
    await nc.flush();
    return violation;
  }

  it('announces the 8 MiB max_payload the configuration sets', async () => {
    const gateway = await connectAs('gateway');
    expect(gateway.info?.max_payload).toBe(NATS_MAX_PAYLOAD_BYTES);
  });

  it('refuses a client without credentials, and one with a wrong password', async () => {
    await expect(connect({ servers: nats.url, reconnect: false })).rejects.toMatchObject({ code: ErrorCode.AuthorizationViolation });
    const { user } = currentNatsUser(users, 'gateway');
    await expect(connect({ servers: nats.url, reconnect: false, user, pass: 'not-the-password-0000' })).rejects.toMatchObject({
      code: ErrorCode.AuthorizationViolation,
    });
  });

  it("keeps the gateway out of the services' requests and others' replies", async () => {
    const gateway = await connectAs('gateway');
    for (const subject of ['identity.>', 'assets.>', 'assets.visitortag.list', 'scripts.>', '>', '_INBOX.>']) {
      expect(await subscribeOutcome(gateway, subject)).toMatchObject({ code: ErrorCode.PermissionsViolation });
    }
    // Its own replies and the services' events are what it may receive.
    expect(await subscribeOutcome(gateway, `${DEFAULT_GATEWAY_INBOX_PREFIX}.abc.*`)).toBeNull();
    expect(await subscribeOutcome(gateway, 'identity.events.apiKeysRevoked')).toBeNull();
  });

  it('lets the gateway send requests but not forge service events', async () => {
    const gateway = await connectAs('gateway');
    expect(await publishViolation(gateway, 'identity.events.apiKeysRevoked')).toMatchObject({ data: ErrorCode.PermissionsViolation });
  });

  it.each([
    ['assets-service', 'identity.apikeys.generate'],
    ['assets-service', 'identity.events.apiKeysRevoked'],
    ['assets-service', 'scripts.logicscript.evaluate'],
    ['scripts-service', 'assets.visitortag.list'],
    ['scripts-service', 'assets.visitortag.findById'],
    ['scripts-service', 'assets.logicscript.list'],
    ['scripts-service', 'assets.logicscript.create'],
    ['scripts-service', 'assets.logicscript.findByIds'],
    ['scripts-service', 'assets.events.assetChanged'],
    ['scripts-service', 'identity.apikeys.verify'],
    ['identity-service', 'assets.visitortag.create'],
  ])('keeps %s from publishing to %s', async (app, subject) => {
    const service = await connectAs(app);
    expect(await publishViolation(service, subject)).toMatchObject({ data: ErrorCode.PermissionsViolation });
  });

  it.each([
    ['assets-service', 'identity.>'],
    ['assets-service', `${DEFAULT_GATEWAY_INBOX_PREFIX}.>`],
    ['identity-service', 'assets.>'],
    ['scripts-service', '>'],
    ['scripts-service', 'assets.>'],
    ['scripts-service', `${DEFAULT_GATEWAY_INBOX_PREFIX}.>`],
    ['gateway', `${DEFAULT_SCRIPTS_INBOX_PREFIX}.>`],
    ['assets-service', `${DEFAULT_SCRIPTS_INBOX_PREFIX}.>`],
  ])('keeps %s from subscribing to %s', async (app, subject) => {
    const service = await connectAs(app);
    expect(await subscribeOutcome(service, subject, app)).toMatchObject({ code: ErrorCode.PermissionsViolation });
  });

  it('lets a service answer one request with many messages (chunked replies)', async () => {
    const assets = await connectAs('assets-service');
    const gateway = await connectAs('gateway');
    const chunks = 150;
    assets.subscribe('assets.visitortag.list', {
      queue: 'assets-service',
      callback: (_error, message) => {
        for (let i = 0; i < chunks; i++) message.respond(new TextEncoder().encode(String(i)));
      },
    });
    await assets.flush();
    const inbox = `${DEFAULT_GATEWAY_INBOX_PREFIX}.test`;
    const received: string[] = [];
    const all = new Promise<void>((resolve) =>
      gateway.subscribe(inbox, {
        callback: (_error, message) => {
          received.push(new TextDecoder().decode(message.data));
          if (received.length === chunks) resolve();
        },
      }),
    );
    gateway.publish('assets.visitortag.list', new TextEncoder().encode('{}'), { reply: inbox });
    await all;
    expect(received).toEqual(Array.from({ length: chunks }, (_, i) => String(i)));
    expect(SERVICE_RESPONSES.max).toBeGreaterThanOrEqual(chunks);
  });

  it("carries the gateway client's requests to a service and the service's answer back", async () => {
    const server = new LeanServerNats(
      natsServerOptions(nats.url, 'scripts-service', { ...natsAccessOptions(accessOf('scripts-service')), gracePeriod: 50 }).options,
    );
    server.addHandler('scripts.logicscript.language', async (data: unknown) => ({ echoed: data }), false);
    await new Promise<void>((resolve, reject) => server.listen((error?: unknown) => (error ? reject(error) : resolve())));
    const client = new NatsServiceClient(nats.url, { timeoutMs: 3000, logger: captureLogs().logger, access: accessOf('gateway') });
    try {
      const request = { context: { accountId: 'A', userId: 'U', permissions: [], correlationId: 'c' }, body: { n: 1 } };
      await expect(client.request('scripts.logicscript.language', request)).resolves.toEqual({ echoed: request });
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('lets scripts-service read a logic script from assets-service (its one call) and receive the answer', async () => {
    const server = new LeanServerNats(
      natsServerOptions(nats.url, 'assets-service', { ...natsAccessOptions(accessOf('assets-service')), gracePeriod: 50 }).options,
    );
    server.addHandler('assets.logicscript.findById', async (data: unknown) => ({ result: { code: 'return "default"', asked: data } }), false);
    await new Promise<void>((resolve, reject) => server.listen((error?: unknown) => (error ? reject(error) : resolve())));
    const client = new NatsServiceClient(nats.url, { timeoutMs: 3000, logger: captureLogs().logger, access: accessOf('scripts-service') });
    try {
      const request = { context: { accountId: 'A', userId: 'U', permissions: [], correlationId: 'c' }, body: { query: { idLogicScript: 'X' } } };
      await expect(client.request('assets.logicscript.findById', request)).resolves.toEqual({ result: { code: 'return "default"', asked: request } });
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('fails the requests of an app with a wrong password with a logged server error, never logging the password', async () => {
    const password = 'wrong-password-0123456789';
    const logs = captureLogs();
    const client = new NatsServiceClient(nats.url, { timeoutMs: 2000, logger: logs.logger, access: { ...accessOf('gateway'), password } });
    try {
      const request = { context: { accountId: 'A', userId: 'U', permissions: [], correlationId: 'c' }, body: {} };
      const failure = await client.request('scripts.logicscript.language', request).catch((error: { status: number }) => error);
      expect((failure as { status: number }).status).toBeGreaterThanOrEqual(500);
      expect(logs.text()).toMatch(/Authorization Violation/);
      expect(logs.text()).not.toContain(password);
    } finally {
      await client.close();
    }
  });
});
