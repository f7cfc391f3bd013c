/**
 * `nats-credentials:create|rotate|retire <dir>`: the NATS users of the distributed apps, for the
 * Kubernetes overlays. `<dir>` holds, all created 0600 and never committed:
 * - `nats-users.json`: every app's users and passwords (the state the other files are made from);
 * - `nats-auth.conf`: the `authorization` block for nats-server (natsAuthorizationConfig);
 * - `nats-<app>.env`: `NATS_USER` / `NATS_PASSWORD` of the user the app connects as.
 * Rotation adds a new user to every app and keeps the old ones in `nats-auth.conf` until `retire`,
 * so apps can roll over to the new user while the old one still works.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FUNNEL_NATS_LAYOUT,
  type NatsUsers,
  checkNatsUsers,
  createNatsUsers,
  currentNatsUser,
  natsApps,
  natsAuthorizationConfig,
  retireNatsUsers,
  rotateNatsUsers,
} from '@funnel/platform';
import { CliIo } from './users';

export const NATS_CREDENTIALS_USAGE = [
  'usage: npm run -s cli -- nats-credentials:create <dir>   a NATS user per app (refuses to overwrite)',
  '       npm run -s cli -- nats-credentials:rotate <dir>   a new user per app; the old ones stay valid',
  '       npm run -s cli -- nats-credentials:retire <dir>   remove all but the newest user of each app',
].join('\n');

export const NATS_USERS_FILE = 'nats-users.json';
export const NATS_AUTH_FILE = 'nats-auth.conf';

export const natsEnvFile = (app: string) => `nats-${app}.env`;

/** Resolves to the exit code: 0 done, 1 failed, 2 bad arguments. Prints user names, never passwords. */
export async function runNatsCredentialsCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, dir, ...extra] = argv;
  if (!dir || dir.startsWith('-') || extra.length) {
    io.err(`error: ${command} takes one directory path`);
    io.err(NATS_CREDENTIALS_USAGE);
    return 2;
  }
  const layout = FUNNEL_NATS_LAYOUT;
  const stateFile = join(dir, NATS_USERS_FILE);
  try {
    let users: NatsUsers;
    if (command === 'nats-credentials:create') {
      if (existsSync(stateFile)) {
        io.err(`error: ${stateFile} exists; rotate it instead`);
        return 1;
      }
      mkdirSync(dir, { recursive: true });
      users = createNatsUsers(layout);
    } else {
      const current = JSON.parse(readFileSync(stateFile, 'utf8')) as NatsUsers;
      checkNatsUsers(current, layout);
      users = command === 'nats-credentials:rotate' ? rotateNatsUsers(current, layout) : retireNatsUsers(current);
    }
    writeSecret(stateFile, `${JSON.stringify(users, null, 2)}\n`);
    writeSecret(join(dir, NATS_AUTH_FILE), natsAuthorizationConfig(layout, users));
    for (const app of natsApps(layout)) {
      const { user, password } = currentNatsUser(users, app);
      writeSecret(join(dir, natsEnvFile(app)), `NATS_USER=${user}\nNATS_PASSWORD=${password}\n`);
    }
    const names = Object.fromEntries(Object.entries(users).map(([app, list]) => [app, list.map(({ user }) => user)]));
    io.out(JSON.stringify({ dir, users: names }));
    return 0;
  } catch (error) {
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/** Owner-only, also when the file already existed with wider permissions. */
function writeSecret(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}
