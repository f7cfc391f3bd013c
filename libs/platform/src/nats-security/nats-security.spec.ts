import { FUNNEL_NATS_LAYOUT, type NatsLayout, natsInboxPrefixOf } from './nats-apps';
import { natsPermissions } from './nats-permissions';
import { jetStreamReaderDeliverSubject, jetStreamReaderPermissions } from './jetstream-permissions';
import { natsAuthorizationConfig } from './nats-server-config';
import { type NatsUsers, createNatsUsers, currentNatsUser, retireNatsUsers, rotateNatsUsers } from './nats-users';

let counter = 0;
const password = () => `password-${String(++counter).padStart(8, '0')}`;

/** The JSON after `authorization:` in the generated text. */
function authorizationOf(text: string): { users: { user: string; password: string; permissions: unknown }[] } {
  return JSON.parse(text.slice(text.indexOf('authorization:') + 'authorization:'.length));
}

describe('NATS permissions', () => {
  it('give each app only what its role needs', () => {
    expect(natsPermissions(FUNNEL_NATS_LAYOUT)).toEqual({
      gateway: {
        publish: {
          allow: ['assets.>', 'identity.>', 'scripts.>', 'billing.>', 'reporting.>'],
          // Never another service's events, reporting's internal subjects or its JetStream subjects.
          deny: [
            'assets.events.>',
            'assets.internal.edgesnapshot',
            'assets.internal.webhooktargets',
            'assets.internal.webhookdeliver',
            'assets.internal.middlewaresecrets',
            'identity.events.>',
            'scripts.events.>',
            'billing.events.>',
            'billing.internal.domains',
            'reporting.events.>',
            'reporting.hits.ingest',
            'reporting.hits.get',
            'reporting.internal.postback',
            'reporting.updates.>',
            'reporting.postbacks.deliver.>',
            'reporting.webhooks.deliver.>',
            'reporting.integrationjobs.deliver.>',
          ],
        },
        subscribe: { allow: ['_INBOX_gateway.>', 'assets.events.>', 'identity.events.>', 'scripts.events.>', 'billing.events.>', 'reporting.events.>'] },
      },
      'assets-service': {
        publish: {
          allow: [
            'assets.events.>',
            '$JS.API.INFO',
            '$JS.API.STREAM.INFO.ASSET_EVENTS',
            '$JS.API.STREAM.CREATE.ASSET_EVENTS',
            '$JS.API.STREAM.UPDATE.ASSET_EVENTS',
            // The readers' durable consumers, which it creates for them.
            '$JS.API.CONSUMER.CREATE.ASSET_EVENTS.>',
            '$JS.API.CONSUMER.DURABLE.CREATE.ASSET_EVENTS.>',
            '$JS.API.CONSUMER.INFO.ASSET_EVENTS.>',
            '$JS.API.STREAM.INFO.KV_ASSET_EVENTS_RELAY',
            '$JS.API.STREAM.CREATE.KV_ASSET_EVENTS_RELAY',
            '$JS.API.STREAM.UPDATE.KV_ASSET_EVENTS_RELAY',
            '$JS.API.STREAM.MSG.GET.KV_ASSET_EVENTS_RELAY',
            '$JS.API.DIRECT.GET.KV_ASSET_EVENTS_RELAY.>',
            '$KV.ASSET_EVENTS_RELAY.>',
          ],
        },
        subscribe: { allow: ['assets.>', '_INBOX_assets.>'] },
        allow_responses: { max: 10000, expires: '2m' },
      },
      'identity-service': { publish: { allow: ['identity.events.>'] }, subscribe: { allow: ['identity.>'] }, allow_responses: { max: 10000, expires: '2m' } },
      'scripts-service': {
        publish: { allow: ['scripts.events.>', 'assets.logicscript.findById'] },
        subscribe: { allow: ['scripts.>', '_INBOX_scripts.>'] },
        allow_responses: { max: 10000, expires: '2m' },
      },
      'billing-service': { publish: { allow: ['billing.events.>'] }, subscribe: { allow: ['billing.>'] }, allow_responses: { max: 10000, expires: '2m' } },
      // Its JetStream API use is scoped to its three streams.
      'reporting-service': {
        publish: {
          allow: [
            'reporting.events.>',
            'assets.trafficsource.findById',
            'assets.funnel.findById',
            'assets.page.findById',
            ...['funnelgroup', 'funnel', 'page', 'trafficsource', 'offersource', 'visitortag'].map((kind) => `assets.${kind}.findByIds`),
            'assets.internal.webhooktargets',
            'assets.internal.webhookdeliver',
            '$JS.API.INFO',
            ...['REPORTING_UPDATES', 'REPORTING_POSTBACKS', 'REPORTING_WEBHOOKS', 'REPORTING_INTEGRATIONS', 'HITS', 'HITS_BATCHES'].flatMap((stream, i) => [
              // It publishes to its job queues, never to the edge's hits.
              ...[
                ['reporting.updates.>'],
                ['reporting.postbacks.deliver.>'],
                ['reporting.webhooks.deliver.>'],
                ['reporting.integrationjobs.deliver.>'],
                [],
                [],
              ][i],
              `$JS.API.STREAM.*.${stream}`,
              `$JS.API.STREAM.MSG.GET.${stream}`,
              `$JS.API.CONSUMER.*.${stream}`,
              `$JS.API.CONSUMER.*.${stream}.>`,
              `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`,
              `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
              `$JS.ACK.${stream}.>`,
            ]),
          ],
        },
        subscribe: { allow: ['reporting.>', '_INBOX_reporting.>'] },
        allow_responses: { max: 10000, expires: '2m' },
      },
      // A client only: it sends hits and reads them back, loads every routing asset and custom domain, receives the asset events, publishes hits to the streams HITS and HITS_BATCHES (no JetStream API for them), keeps the visitor sessions in its KV bucket, and answers nothing.
      'tracking-edge': {
        publish: {
          allow: [
            'reporting.hits.ingest',
            'reporting.hits.get',
            'reporting.internal.postback',
            'assets.internal.edgesnapshot',
            'assets.internal.middlewaresecrets',
            'billing.internal.domains',
            'hits.*',
            'hits.batch.*',
            '$JS.API.INFO',
            '$JS.API.STREAM.INFO.KV_EDGE_SESSIONS',
            '$JS.API.STREAM.CREATE.KV_EDGE_SESSIONS',
            '$JS.API.STREAM.UPDATE.KV_EDGE_SESSIONS',
            '$JS.API.STREAM.MSG.GET.KV_EDGE_SESSIONS',
            '$JS.API.DIRECT.GET.KV_EDGE_SESSIONS.>',
            '$KV.EDGE_SESSIONS.>',
          ],
        },
        subscribe: { allow: ['_INBOX_tracking_edge.>', 'assets.events.>'] },
      },
    });
  });

  it('let a service call exactly the subjects of its calls entry, with replies on its own inboxes', () => {
    const layout: NatsLayout = {
      ...FUNNEL_NATS_LAYOUT,
      services: [
        ...FUNNEL_NATS_LAYOUT.services,
        { app: 'example-service', subjectRoot: 'example', calls: { subjects: ['identity.accounts.get'], inboxPrefix: '_INBOX_example' } },
      ],
    };
    expect(natsPermissions(layout)['example-service']).toMatchObject({
      publish: { allow: ['example.events.>', 'identity.accounts.get'] },
      subscribe: { allow: ['example.>', '_INBOX_example.>'] },
    });
    expect(natsInboxPrefixOf(layout, 'example-service')).toBe('_INBOX_example');
    expect(natsInboxPrefixOf(layout, 'gateway')).toBe('_INBOX_gateway');
    expect(natsInboxPrefixOf(layout, 'assets-service')).toBe('_INBOX_assets');
    expect(natsInboxPrefixOf(layout, 'billing-service')).toBeUndefined();
    for (const wildcard of ['identity.>', 'identity.*.get', '>']) {
      const widened: NatsLayout = { ...layout, services: [{ app: 'x-service', subjectRoot: 'x', calls: { subjects: [wildcard], inboxPrefix: '_INBOX_x' } }] };
      expect(() => natsPermissions(widened)).toThrow(/named subjects only/);
    }
  });

  it('let a reader of the asset events only receive its own consumer’s deliveries and acknowledge them: no JetStream API at all', () => {
    expect(jetStreamReaderPermissions('events-reader')).toEqual({
      publish: { allow: ['$JS.ACK.ASSET_EVENTS.events-reader.>'] },
      subscribe: { allow: ['_INBOX_events.events-reader'] },
    });
    expect(jetStreamReaderDeliverSubject('reporting-events')).toBe('_INBOX_events.reporting-events');
    for (const name of ['', 'a.b', 'a*', 'a>', 'x'.repeat(65)]) expect(() => jetStreamReaderPermissions(name)).toThrow(/a reader's name/);
  });

  it('follow the layout: a new service is one more entry', () => {
    const layout: NatsLayout = { ...FUNNEL_NATS_LAYOUT, services: [...FUNNEL_NATS_LAYOUT.services, { app: 'audit-service', subjectRoot: 'audit' }] };
    const permissions = natsPermissions(layout);
    expect(permissions['gateway'].publish.allow).toContain('audit.>');
    expect(permissions['audit-service'].subscribe.allow).toEqual(['audit.>']);
  });
});

describe('NATS server configuration', () => {
  it('lists every user of every app with its permissions, and no anonymous user', () => {
    const users = createNatsUsers(FUNNEL_NATS_LAYOUT, password);
    const text = natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, users);
    expect(text).not.toMatch(/no_auth_user/);
    const { users: entries } = authorizationOf(text);
    expect(entries.map(({ user }) => user)).toEqual([
      'gateway-1',
      'assets-service-1',
      'identity-service-1',
      'scripts-service-1',
      'billing-service-1',
      'reporting-service-1',
      'tracking-edge-1',
    ]);
    expect(entries[1]).toEqual({ ...users['assets-service'][0], permissions: natsPermissions(FUNNEL_NATS_LAYOUT)['assets-service'] });
  });

  it('refuses a missing app, an unknown app, a reused name and a weak password (without echoing it)', () => {
    const users = createNatsUsers(FUNNEL_NATS_LAYOUT, password);
    const without = (app: string): NatsUsers => Object.fromEntries(Object.entries(users).filter(([name]) => name !== app));
    expect(() => natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, without('scripts-service'))).toThrow('no NATS user for scripts-service');
    expect(() => natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, { ...users, intruder: [{ user: 'x', password: password() }] })).toThrow(/unknown app intruder/);
    expect(() => natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, { ...users, gateway: [{ user: 'assets-service-1', password: password() }] })).toThrow(
      /used twice/,
    );
    for (const weak of ['short', 'has "quotes" in it!!', '$2a$11$looks.like.a.bcrypt.hash']) {
      let message = '';
      try {
        natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, { ...users, gateway: [{ user: 'gateway-1', password: weak }] });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/NATS password of gateway-1 must be/);
      expect(message).not.toContain(weak);
    }
  });
});

describe('NATS user rotation', () => {
  it('adds a new user per app, keeps the old ones until retired, and the apps move to the new one', () => {
    const first = createNatsUsers(FUNNEL_NATS_LAYOUT, password);
    const rotated = rotateNatsUsers(first, FUNNEL_NATS_LAYOUT, password);
    expect(rotated['gateway'].map(({ user }) => user)).toEqual(['gateway-1', 'gateway-2']);
    expect(rotated['gateway'][0]).toEqual(first['gateway'][0]);
    expect(currentNatsUser(rotated, 'gateway').user).toBe('gateway-2');
    expect(currentNatsUser(rotated, 'gateway').password).not.toBe(first['gateway'][0].password);
    expect(authorizationOf(natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, rotated)).users).toHaveLength(14);

    const retired = retireNatsUsers(rotated);
    expect(retired['gateway']).toEqual([rotated['gateway'][1]]);
    expect(rotateNatsUsers(retired, FUNNEL_NATS_LAYOUT, password)['gateway'].map(({ user }) => user)).toEqual(['gateway-2', 'gateway-3']);
  });
});
