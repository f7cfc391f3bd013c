import { randomBytes } from 'node:crypto';
import { type NatsLayout, natsApps } from './nats-apps';

export interface NatsUser {
  user: string;
  password: string;
}

/**
 * Each app's NATS users, oldest first. The app connects as the last one; the earlier ones are still
 * accepted by the server while a rotation rolls the apps over, then retired.
 */
export type NatsUsers = Record<string, NatsUser[]>;

export const NATS_USER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Quote-free and `$`-free, so the server config needs no escaping and never mistakes it for a bcrypt hash. */
export const NATS_PASSWORD = /^[A-Za-z0-9_~+/=.-]{16,128}$/;

/** 32 characters of base64url (192 random bits). */
export function newNatsPassword(): string {
  return randomBytes(24).toString('base64url');
}

/** One user per app: `<app>-1` with a fresh password. */
export function createNatsUsers(layout: NatsLayout, password: () => string = newNatsPassword): NatsUsers {
  return Object.fromEntries(natsApps(layout).map((app) => [app, [{ user: `${app}-1`, password: password() }]]));
}

/** Adds a new user to every app (`<app>-<n+1>`), keeping the old ones until `retireNatsUsers`. */
export function rotateNatsUsers(users: NatsUsers, layout: NatsLayout, password: () => string = newNatsPassword): NatsUsers {
  return Object.fromEntries(
    natsApps(layout).map((app) => {
      const existing = users[app] ?? [];
      const generations = existing.map(({ user }) => Number(/-(\d+)$/.exec(user)?.[1] ?? 0));
      return [app, [...existing, { user: `${app}-${Math.max(0, ...generations) + 1}`, password: password() }]];
    }),
  );
}

/** Keeps only the user each app connects as (the last). */
export function retireNatsUsers(users: NatsUsers): NatsUsers {
  return Object.fromEntries(Object.entries(users).map(([app, list]) => [app, list.slice(-1)]));
}

/** The user `app` connects as. */
export function currentNatsUser(users: NatsUsers, app: string): NatsUser {
  const user = users[app]?.at(-1);
  if (!user) throw new Error(`no NATS user for ${app}`);
  return user;
}

/** The variables that make `app` connect as its current user. */
export function natsUserEnv(users: NatsUsers, app: string): { NATS_USER: string; NATS_PASSWORD: string } {
  const { user, password } = currentNatsUser(users, app);
  return { NATS_USER: user, NATS_PASSWORD: password };
}

/** Throws on the first app without a user, unknown app, duplicate or malformed name, or weak password (never echoed). */
export function checkNatsUsers(users: NatsUsers, layout: NatsLayout): void {
  const apps = natsApps(layout);
  const unknown = Object.keys(users).find((app) => !apps.includes(app));
  if (unknown) throw new Error(`NATS users given for unknown app ${unknown}`);
  const seen = new Set<string>();
  for (const app of apps) {
    const list = users[app] ?? [];
    if (list.length === 0) throw new Error(`no NATS user for ${app}`);
    for (const { user, password } of list) {
      if (!NATS_USER_NAME.test(user)) throw new Error(`NATS user name ${JSON.stringify(user)} of ${app} must match ${NATS_USER_NAME}`);
      if (seen.has(user)) throw new Error(`NATS user name ${user} is used twice`);
      seen.add(user);
      if (!NATS_PASSWORD.test(password)) throw new Error(`NATS password of ${user} must be 16..128 characters of A-Z a-z 0-9 _ ~ + / = . -`);
    }
  }
}
