import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FUNNEL_NATS_LAYOUT, type NatsUsers, natsApps, natsAuthorizationConfig } from '@funnel/platform';
import { tempDir } from '@funnel/testing';
import { NATS_AUTH_FILE, NATS_USERS_FILE, natsEnvFile, runNatsCredentialsCli } from './nats-credentials';

function capture() {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (line: string) => void stdout.push(line), err: (line: string) => void stderr.push(line) };
}

describe('nats-credentials CLI', () => {
  const dir = tempDir('nats-credentials');
  afterAll(() => dir.remove());
  const read = (name: string) => readFileSync(join(dir.path, name), 'utf8');
  const state = () => JSON.parse(read(NATS_USERS_FILE)) as NatsUsers;
  const envOf = (app: string) =>
    Object.fromEntries(
      read(natsEnvFile(app))
        .trim()
        .split('\n')
        .map((line) => line.split('=', 2)),
    );

  it('creates a user per app: the nats-server configuration is the generator output, each app gets its own env file, all 0600', async () => {
    const io = capture();
    expect(await runNatsCredentialsCli(['nats-credentials:create', dir.path], io)).toBe(0);
    const users = state();
    expect(read(NATS_AUTH_FILE)).toBe(natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, users));
    for (const app of ['gateway', 'assets-service', 'identity-service', 'scripts-service', 'billing-service']) {
      expect(envOf(app)).toEqual({ NATS_USER: `${app}-1`, NATS_PASSWORD: users[app][0].password });
    }
    for (const name of [NATS_USERS_FILE, NATS_AUTH_FILE, natsEnvFile('gateway')]) expect(statSync(join(dir.path, name)).mode & 0o777).toBe(0o600);
    // The output names the users, never a password.
    expect(JSON.parse(io.stdout[0]).users['gateway']).toEqual(['gateway-1']);
    expect(io.stdout.join('\n')).not.toContain(users['gateway'][0].password);

    expect(await runNatsCredentialsCli(['nats-credentials:create', dir.path], capture())).toBe(1);
    expect(state()).toEqual(users);
  });

  it('rotates: the apps move to a new user while the server still accepts the old one, until retired', async () => {
    const before = state();
    expect(await runNatsCredentialsCli(['nats-credentials:rotate', dir.path], capture())).toBe(0);
    const rotated = state();
    expect(rotated['gateway'].map(({ user }) => user)).toEqual(['gateway-1', 'gateway-2']);
    expect(rotated['gateway'][0]).toEqual(before['gateway'][0]);
    expect(envOf('gateway')).toEqual({ NATS_USER: 'gateway-2', NATS_PASSWORD: rotated['gateway'][1].password });
    expect(read(NATS_AUTH_FILE)).toBe(natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, rotated));
    expect(read(NATS_AUTH_FILE)).toContain(before['gateway'][0].password);

    expect(await runNatsCredentialsCli(['nats-credentials:retire', dir.path], capture())).toBe(0);
    expect(state()['gateway']).toEqual([rotated['gateway'][1]]);
    expect(read(NATS_AUTH_FILE)).not.toContain(before['gateway'][0].password);
    expect(envOf('gateway')['NATS_USER']).toBe('gateway-2');
  });

  it('needs one directory', async () => {
    const io = capture();
    expect(await runNatsCredentialsCli(['nats-credentials:rotate'], io)).toBe(2);
    expect(io.stderr.join('\n')).toMatch(/takes one directory path/);
  });
});

describe('the Kubernetes overlays', () => {
  const root = join(__dirname, '..', '..', 'deploy', 'k8s');
  const apps = natsApps(FUNNEL_NATS_LAYOUT);

  it.each(['dev', 'prod'])("%s turns each app's env file into its Secret, and each app's Deployment reads it", (overlay) => {
    const kustomization = readFileSync(join(root, 'overlays', overlay, 'kustomization.yaml'), 'utf8');
    for (const app of apps) {
      expect(kustomization).toContain(`- name: funnel-nats-${app}\n    envs:\n      - secrets/${natsEnvFile(app)}\n`);
    }
    // Clients of the layout (the tracking edge) run elsewhere: a Secret to hand them, no Deployment here.
    for (const app of [FUNNEL_NATS_LAYOUT.gateway, ...FUNNEL_NATS_LAYOUT.services.map((service) => service.app)]) {
      expect(readFileSync(join(root, 'base', `${app}.yaml`), 'utf8')).toMatch(new RegExp(`- secretRef:\\n\\s+name: funnel-nats-${app}\\n`));
    }
  });
});
