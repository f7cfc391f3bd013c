import type { NatsLayout } from './nats-apps';
import { type NatsPermissions, natsPermissions } from './nats-permissions';
import { type NatsUsers, checkNatsUsers } from './nats-users';

/** A user besides the apps' (a reader of the asset events, see jetStreamReaderPermissions), with its own permissions. */
export interface NatsExtraUser {
  user: string;
  password: string;
  permissions: NatsPermissions;
}

/**
 * The largest message nats-server accepts (`max_payload`; its default is 1 MB), set in every
 * configuration this project ships: 8 MiB, nats-server's recommended maximum, holds the largest
 * reporting job compressed (a 10,000-row conversions update with 256-character transaction ids of
 * random non-ASCII text is about 5.9 MiB gzipped).
 */
export const NATS_MAX_PAYLOAD_BYTES = 8 * 1024 * 1024;

/** The server limits this project needs, as nats-server configuration. */
export function natsLimitsConfig(): string {
  return `max_payload: ${NATS_MAX_PAYLOAD_BYTES}\n`;
}

/**
 * The `authorization` block of nats-server's configuration: every user of every app with its app's
 * permissions. There is no `no_auth_user`, so a client without valid credentials is refused.
 * The text holds the passwords: keep it as secret as they are. nats-server reads it whole or
 * through `include`; `nats-server --signal reload` applies a new one without dropping connections.
 * It starts with natsLimitsConfig (`max_payload`), so every server loading it takes the largest jobs.
 */
export function natsAuthorizationConfig(layout: NatsLayout, users: NatsUsers, extraUsers: readonly NatsExtraUser[] = []): string {
  checkNatsUsers(users, layout);
  const permissions = natsPermissions(layout);
  const entries = [
    ...Object.entries(users).flatMap(([app, list]) => list.map(({ user, password }) => ({ user, password, permissions: permissions[app] }))),
    ...extraUsers.map(({ user, password, permissions }) => ({ user, password, permissions })),
  ];
  // JSON is valid nats-server configuration syntax.
  return [
    '# NATS users and permissions of funnel-service (generated; holds passwords, keep it secret).',
    '# The largest message (8 MiB): a reporting job of 10,000 rows, compressed, fits.',
    natsLimitsConfig(),
    `authorization: ${JSON.stringify({ users: entries }, null, 2)}`,
    '',
  ].join('\n');
}
