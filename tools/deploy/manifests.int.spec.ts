/**
 * deploy/k8s as a platform team renders it: both overlays, with the per-environment files under
 * secrets/ made by the CLI commands deploy/README.md names, are valid Kubernetes objects (the API's
 * schemas, offline, from kubernetes-models), and every app finds a writable, persistent or
 * Secret-backed place for each file it writes at start (from its own configuration code).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { posix, join, resolve } from 'node:path';
import { IdentityKeys } from '@funnel/identity-feature';
import { AssetSecretBox } from '@funnel/assets-feature';
import { APP_START_FILES, type StartFile } from '@funnel/runtime';
import { tempDir } from '@funnel/testing';
import { runNatsCredentialsCli } from '../cli/nats-credentials';
import { type K8sObject, parseYamlDocuments, renderKustomization } from './kustomize';

const root = resolve(__dirname, '..', '..');
/** The image's working directory (deploy/docker/Dockerfile): where relative paths such as `./data` land. */
const WORKDIR = '/app';
const OVERLAYS = ['dev', 'prod'] as const;

/** A value the apps accept for each key of the prod examples (the test's stand-ins for REPLACE_ME). */
const EXAMPLE_VALUES: Record<string, string> = {
  BOOTSTRAP_ADMIN_EMAIL: 'ops@example.com',
  BOOTSTRAP_ADMIN_PASSWORD: 'a-long-test-password',
  BOOTSTRAP_API_KEY: 'test-bootstrap-api-key-0123456789',
  EVENTSTORE_URL: 'esdb+discover://funnel:secret@eventstore.eventstore:2113',
  MONGO_URL: 'mongodb://funnel:secret@mongo.mongodb:27017/?replicaSet=rs0&authSource=admin',
  CLICKHOUSE_URL: 'http://funnel:secret@clickhouse.clickhouse:8123/funnel',
};

function fromExample(example: string): string {
  return readFileSync(example, 'utf8').replace(/^([A-Z_]+)=REPLACE_ME$/gm, (_line, key: string) => {
    if (!(key in EXAMPLE_VALUES)) throw new Error(`${example}: no test value for ${key}`);
    return `${key}=${EXAMPLE_VALUES[key]}`;
  });
}

/** secrets/ of an overlay, made as deploy/README.md says. */
async function makeSecrets(overlay: string): Promise<void> {
  const secrets = join(overlay, 'secrets');
  await IdentityKeys.load(join(secrets, 'identity-keys.json'));
  AssetSecretBox.create(join(secrets, 'asset-secrets.json'));
  AssetSecretBox.create(join(secrets, 'integration-secrets.json'));
  const quiet = { out: () => undefined, err: (line: string) => process.stderr.write(`${line}\n`) };
  expect(await runNatsCredentialsCli(['nats-credentials:create', secrets], quiet)).toBe(0);
  if (overlay.endsWith('prod')) {
    for (const name of ['bootstrap', 'connections']) writeFileSync(join(secrets, `${name}.env`), fromExample(join(secrets, `${name}.env.example`)));
  }
}

const named = (objects: K8sObject[], kind: string) => objects.filter((object) => object['kind'] === kind);
const find = (objects: K8sObject[], kind: string, name: string) => objects.find((object) => object['kind'] === kind && object['metadata'].name === name);

/** The container's environment as the kubelet builds it: envFrom in order (later wins), then env. */
function environmentOf(objects: K8sObject[], container: K8sObject): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const source of container['envFrom'] ?? []) {
    const ref = source.configMapRef ?? source.secretRef;
    const object = find(objects, source.configMapRef ? 'ConfigMap' : 'Secret', ref.name);
    if (!object) {
      expect({ missing: ref.name, optional: ref.optional }).toEqual({ missing: ref.name, optional: true });
      continue;
    }
    for (const [key, value] of Object.entries<string>(object['data'] ?? {}))
      env[key] = source.secretRef ? Buffer.from(value, 'base64').toString('utf8') : value;
  }
  for (const variable of container['env'] ?? []) {
    if (variable.valueFrom) throw new Error(`env ${variable.name}: valueFrom is not read by this test`);
    env[variable.name] = variable.value;
  }
  return env;
}

/** Where a file lands in the pod: the volume mounted at the longest prefix of its path, if any. */
function placeOf(objects: K8sObject[], workload: K8sObject, container: K8sObject, file: StartFile): string {
  const path = posix.resolve(WORKDIR, file.path);
  const mount = [...(container['volumeMounts'] ?? [])]
    .filter((candidate: K8sObject) => path.startsWith(`${candidate['mountPath'].replace(/\/$/, '')}/`))
    .sort((a: K8sObject, b: K8sObject) => b['mountPath'].length - a['mountPath'].length)[0];
  const where = `${file.variable} ${path}`;
  if (!mount) return `${where}: on the read-only root filesystem`;
  const volume = workload['spec'].template.spec.volumes.find((candidate: K8sObject) => candidate['name'] === mount['name']);
  if (volume.secret) {
    const key = posix.relative(mount['mountPath'], path);
    const secret = find(objects, 'Secret', volume.secret.secretName);
    if (file.kind !== 'key') return `${where}: a Secret (read-only) for a file the app writes`;
    return secret && key in (secret['data'] ?? {})
      ? `${where}: Secret ${volume.secret.secretName}`
      : `${where}: Secret ${volume.secret.secretName} without key ${key}`;
  }
  if (volume.persistentVolumeClaim && !mount['readOnly']) {
    const claim = find(objects, 'PersistentVolumeClaim', volume.persistentVolumeClaim.claimName);
    if (!claim) return `${where}: no PersistentVolumeClaim ${volume.persistentVolumeClaim.claimName}`;
    // One writer on a ReadWriteOnce volume: a single replica, no autoscaler, the old pod gone before the new one.
    const single =
      workload['spec'].replicas === 1 &&
      workload['spec'].strategy?.type === 'Recreate' &&
      !named(objects, 'HorizontalPodAutoscaler').some((hpa) => hpa['spec'].scaleTargetRef.name === workload['metadata'].name);
    return single ? `${where}: PersistentVolumeClaim` : `${where}: PersistentVolumeClaim shared by several pods`;
  }
  return `${where}: ${volume.emptyDir ? 'an emptyDir, lost with the pod' : `volume ${mount['name']}, not writable and persistent`}`;
}

describe('deploy/k8s overlays, rendered and checked offline', () => {
  const dir = tempDir('k8s-manifests');
  const rendered: Record<string, K8sObject[]> = {};

  beforeAll(async () => {
    cpSync(join(root, 'deploy', 'k8s'), join(dir.path, 'k8s'), { recursive: true });
    for (const overlay of OVERLAYS) {
      await makeSecrets(join(dir.path, 'k8s', 'overlays', overlay));
      rendered[overlay] = renderKustomization(join(dir.path, 'k8s', 'overlays', overlay));
    }
  });
  afterAll(() => dir.remove());

  it.each(OVERLAYS)('%s: every object is valid against the Kubernetes schemas', (overlay) => {
    const objects = rendered[overlay];
    expect(named(objects, 'Deployment').length).toBe(Object.keys(APP_START_FILES).length);
    const run = spawnSync(process.execPath, [join(__dirname, 'validate-manifests.mjs')], { input: JSON.stringify(objects), encoding: 'utf8', cwd: root });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it.each(OVERLAYS)('%s: every app finds a writable and persistent place, or a Secret, for each file it writes at start', (overlay) => {
    const objects = rendered[overlay];
    const places: Record<string, string[]> = {};
    for (const workload of named(objects, 'Deployment')) {
      const app = workload['metadata'].name as string;
      const container = workload['spec'].template.spec.containers[0];
      expect(`${app}: readOnlyRootFilesystem ${container.securityContext?.readOnlyRootFilesystem}`).toBe(`${app}: readOnlyRootFilesystem true`);
      const startFiles = APP_START_FILES[app];
      expect(`${app}: ${typeof startFiles}`).toBe(`${app}: function`);
      // Loads and checks the app's configuration as its start does: a refused setting throws here.
      places[app] = startFiles(environmentOf(objects, container)).map((file) => placeOf(objects, workload, container, file));
    }
    const expected: Record<string, string[]> = {
      gateway: [],
      'assets-service': ['ASSET_SECRETS_FILE /etc/funnel/asset-secrets/asset-secrets.json: Secret'],
      'identity-service': ['IDENTITY_KEYS_FILE /etc/funnel/identity-keys/identity-keys.json: Secret'],
      'scripts-service': [],
      'billing-service': [],
      // Hits in ClickHouse in prod (required there); dev keeps them in SQLite on a volume of their own.
      'reporting-service': overlay === 'dev' ? ['DATA_DIR /data/reporting.sqlite: PersistentVolumeClaim'] : [],
      // Sessions in the JetStream bucket, hits to the stream HITS: nothing on disk.
      'tracking-edge': [],
    };
    const withoutSecretNames = Object.fromEntries(
      Object.entries(places).map(([app, list]) => [app, list.map((place) => place.replace(/(: Secret) \S+$/, '$1'))]),
    );
    expect(withoutSecretNames).toEqual(expected);
  });

  it.each(OVERLAYS)("%s: reporting-service's replicas share the integrations' key file, a Secret, once a provider is configured", (overlay) => {
    const objects = rendered[overlay];
    const workload = find(objects, 'Deployment', 'reporting-service')!;
    const container = workload['spec'].template.spec.containers[0];
    // As the optional Secret funnel-integration-providers would add them.
    const env = {
      ...environmentOf(objects, container),
      INTEGRATION_REDIRECT_URI: 'https://app.example.com/integrations/callback',
      INTEGRATION_META_CLIENT_ID: 'meta-app',
      INTEGRATION_META_CLIENT_SECRET: 'meta-secret',
    };
    const keys = APP_START_FILES['reporting-service'](env).filter((file) => file.variable === 'INTEGRATION_SECRETS_FILE');
    expect(keys.map((file) => placeOf(objects, workload, container, file).replace(/-[a-z0-9]{10}$/, ''))).toEqual([
      'INTEGRATION_SECRETS_FILE /etc/funnel/integration-secrets/integration-secrets.json: Secret funnel-integration-secrets',
    ]);
  });

  it('prod: every app has an autoscaler and a disruption budget, and the reporting job streams three replicas', () => {
    const objects = rendered['prod'];
    const apps = named(objects, 'Deployment').map((workload) => workload['metadata'].name as string);
    const scaled = named(objects, 'HorizontalPodAutoscaler').map(
      (hpa) => `${hpa['spec'].scaleTargetRef.name} ${hpa['spec'].minReplicas}..${hpa['spec'].maxReplicas}`,
    );
    expect(scaled.sort()).toEqual(apps.map((app) => `${app} 3..${['gateway', 'scripts-service', 'tracking-edge'].includes(app) ? 20 : 10}`).sort());
    const budgets = named(objects, 'PodDisruptionBudget').map((pdb) => pdb['spec'].selector.matchLabels['app.kubernetes.io/name']);
    expect(budgets.sort()).toEqual([...apps].sort());
    expect(named(objects, 'Deployment').filter((workload) => workload['spec'].replicas !== undefined)).toEqual([]);
    expect(named(objects, 'ConfigMap').map((config) => config['data'].REPORTING_STREAM_REPLICAS)).toEqual(['3']);
  });

  it("dev: the tracking edge answers the domain check with the token billing-service's checks expect (one Secret for both)", () => {
    const objects = rendered['dev'];
    const tokenOf = (app: string) => environmentOf(objects, find(objects, 'Deployment', app)!['spec'].template.spec.containers[0])['EDGE_CHECK_TOKEN'];
    expect(tokenOf('tracking-edge')).toBe('dev-edge-check-token');
    expect(tokenOf('billing-service')).toBe(tokenOf('tracking-edge'));
  });

  it('reporting-service refuses to start where ClickHouse is required and not given', () => {
    const objects = rendered['prod'];
    const workload = find(objects, 'Deployment', 'reporting-service')!;
    const env = environmentOf(objects, workload['spec'].template.spec.containers[0]);
    delete env['CLICKHOUSE_URL'];
    expect(() => APP_START_FILES['reporting-service'](env)).toThrow('Invalid configuration: CLICKHOUSE_URL is required when REPORTING_REQUIRE_CLICKHOUSE=true');
  });

  it('the renderer matches kubectl kustomize: on a recorded sample always, on both overlays where kubectl is installed', () => {
    const sample = join(__dirname, 'fixtures', 'sample', 'overlay');
    const recorded = parseYamlDocuments(readFileSync(join(__dirname, 'fixtures', 'sample', 'kubectl-kustomize.yaml'), 'utf8'), 'recorded');
    const key = (object: K8sObject) => `${object['kind']} ${object['metadata'].namespace ?? ''} ${object['metadata'].name}`;
    const byKey = (objects: K8sObject[]) => Object.fromEntries(objects.map((object) => [key(object), object]));
    expect(byKey(renderKustomization(sample))).toEqual(byKey(recorded));
    if (spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status !== 0) return;
    expect(byKey(parseYamlDocuments(execFileSync('kubectl', ['kustomize', sample], { encoding: 'utf8' }), 'kubectl'))).toEqual(byKey(recorded));
    for (const overlay of OVERLAYS) {
      const output = execFileSync('kubectl', ['kustomize', join(dir.path, 'k8s', 'overlays', overlay)], { encoding: 'utf8' });
      expect(byKey(rendered[overlay])).toEqual(byKey(parseYamlDocuments(output, `kubectl kustomize ${overlay}`)));
    }
  });
});
