/**
 * A small kustomize renderer for the tests of deploy/k8s, covering exactly what those overlays use:
 * `resources` (files and directories), `configMapGenerator` / `secretGenerator` (`envs`, `files`,
 * `literals`, `behavior: merge | replace`, the content-hash name suffix and the references to it),
 * `namespace`, `labels` (`includeSelectors: false`, `includeTemplates: true`), `images`, `replicas` and
 * `patches` (JSON 6902 operations, or `$patch: delete`). Anything else is refused by name, so a new
 * kustomize feature in the overlays fails the test instead of rendering wrongly. No npm package
 * implements kustomize and CI has no kubectl: the test compares this renderer's output with
 * `kubectl kustomize` wherever kubectl is installed.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

export type K8sObject = Record<string, any>;

const KNOWN_FIELDS = new Set([
  'apiVersion',
  'kind',
  'namespace',
  'resources',
  'labels',
  'images',
  'replicas',
  'configMapGenerator',
  'secretGenerator',
  'patches',
]);
const CLUSTER_SCOPED = new Set(['Namespace', 'PersistentVolume', 'StorageClass', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);
const POD_TEMPLATE_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']);

interface Item {
  object: K8sObject;
  /** A generated ConfigMap or Secret whose name gets the content hash when the build ends. */
  hashed: boolean;
}

/** Parses YAML as Kubernetes does (YAML 1.1: `0400` is octal). */
export function parseYamlDocuments(text: string, source: string): K8sObject[] {
  return parseAllDocuments(text, { version: '1.1' })
    .map((document) => {
      if (document.errors.length) throw new Error(`${source}: ${document.errors[0].message}`);
      return document.toJSON() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}

/** `kubectl kustomize <dir>`: the overlay's objects, generated names hashed and referenced. */
export function renderKustomization(dir: string): K8sObject[] {
  const items = build(resolve(dir));
  const renamed = new Map<string, string>();
  for (const item of items) {
    if (!item.hashed) continue;
    const name = item.object['metadata'].name as string;
    const hashedName = `${name}-${contentHash(item.object)}`;
    renamed.set(`${item.object['kind']}/${name}`, hashedName);
    item.object['metadata'].name = hashedName;
  }
  for (const { object } of items) if (POD_TEMPLATE_KINDS.has(object['kind'])) renameReferences(podSpecOf(object), renamed);
  return items.map((item) => item.object);
}

function build(dir: string): Item[] {
  const file = join(dir, 'kustomization.yaml');
  const [kustomization] = parseYamlDocuments(readFileSync(file, 'utf8'), file);
  const unknown = Object.keys(kustomization).filter((field) => !KNOWN_FIELDS.has(field));
  if (unknown.length) throw new Error(`${file}: not supported by the test renderer: ${unknown.join(', ')}`);
  const items: Item[] = [];
  for (const entry of (kustomization['resources'] ?? []) as string[]) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) items.push(...build(path));
    else items.push(...parseYamlDocuments(readFileSync(path, 'utf8'), path).map((object) => ({ object, hashed: false })));
  }
  for (const generator of (kustomization['configMapGenerator'] ?? []) as K8sObject[]) generate(items, dir, 'ConfigMap', generator);
  for (const generator of (kustomization['secretGenerator'] ?? []) as K8sObject[]) generate(items, dir, 'Secret', generator);
  for (const patch of (kustomization['patches'] ?? []) as K8sObject[]) applyPatch(items, dir, patch);
  const namespace = kustomization['namespace'] as string | undefined;
  if (namespace) for (const { object } of items) if (!CLUSTER_SCOPED.has(object['kind'])) object['metadata'].namespace = namespace;
  for (const label of (kustomization['labels'] ?? []) as K8sObject[]) addLabels(items, label);
  for (const image of (kustomization['images'] ?? []) as K8sObject[]) setImage(items, image);
  for (const { name, count } of (kustomization['replicas'] ?? []) as { name: string; count: number }[]) {
    const target = items.find(({ object }) => POD_TEMPLATE_KINDS.has(object['kind']) && object['metadata'].name === name);
    if (!target) throw new Error(`${file}: replicas: no workload ${name}`);
    target.object['spec'].replicas = count;
  }
  return items;
}

/** `KEY=VALUE` lines of an env file (blank lines and `#` comments skipped), as kustomize reads them. */
function envFile(path: string): [string, string][] {
  return readFileSync(path, 'utf8')
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((line) => line.replace(/\r$/, '').trimStart())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const at = line.indexOf('=');
      if (at <= 0) throw new Error(`${path}: "${line}" is not KEY=VALUE`);
      return [line.slice(0, at), line.slice(at + 1)];
    });
}

function generate(items: Item[], dir: string, kind: 'ConfigMap' | 'Secret', generator: K8sObject): void {
  const unknown = Object.keys(generator).filter((field) => !['name', 'behavior', 'envs', 'files', 'literals'].includes(field));
  if (unknown.length) throw new Error(`${kind} generator ${generator['name']}: not supported by the test renderer: ${unknown.join(', ')}`);
  const entries: [string, string][] = [
    ...((generator['envs'] ?? []) as string[]).flatMap((path) => envFile(join(dir, path))),
    ...((generator['files'] ?? []) as string[]).map((path): [string, string] => [basename(path), readFileSync(join(dir, path), 'utf8')]),
    ...((generator['literals'] ?? []) as string[]).map((literal): [string, string] => [
      literal.slice(0, literal.indexOf('=')),
      literal.slice(literal.indexOf('=') + 1),
    ]),
  ];
  const data = Object.fromEntries(entries.map(([key, value]) => [key, kind === 'Secret' ? base64Lines(value) : value]));
  const name = generator['name'] as string;
  const behavior = (generator['behavior'] as string | undefined) ?? 'create';
  const existing = items.find(({ object }) => object['kind'] === kind && object['metadata'].name === name);
  const created: K8sObject = { apiVersion: 'v1', kind, metadata: { name }, ...(kind === 'Secret' ? { type: 'Opaque' } : {}), data };
  if (behavior === 'create') {
    if (existing) throw new Error(`${kind} ${name} exists: use behavior merge or replace`);
    items.push({ object: created, hashed: true });
  } else if (behavior === 'merge' || behavior === 'replace') {
    if (!existing) throw new Error(`${kind} ${name}: nothing to ${behavior}`);
    const old = existing.object;
    const metadata = { ...old['metadata'], labels: { ...old['metadata'].labels, ...created['metadata'].labels } };
    if (!Object.keys(metadata.labels).length) delete metadata.labels;
    existing.object =
      behavior === 'merge'
        ? { ...old, metadata, data: { ...old['data'], ...data } }
        : { ...created, metadata, ...(kind === 'Secret' ? { type: old['type'] ?? 'Opaque' } : {}) };
  } else throw new Error(`${kind} ${name}: unknown behavior ${behavior}`);
}

/** Base64 as kustomize writes Secret data: in lines of 70 characters, each ending in a newline, once longer than one line. */
function base64Lines(value: string): string {
  const encoded = Buffer.from(value).toString('base64');
  if (encoded.length < 70) return encoded;
  return (encoded.match(/.{1,70}/g) ?? []).map((line) => `${line}\n`).join('');
}

/**
 * kustomize's name suffix: the first 10 hex digits of the SHA-256 of the kind, type and data in Go's JSON
 * encoding, some letters swapped. kustomize v5 reads the name there as empty (checked against kubectl).
 */
function contentHash(object: K8sObject): string {
  const fields: K8sObject =
    object['kind'] === 'Secret'
      ? { data: object['data'] ?? {}, kind: 'Secret', name: '', type: object['type'] ?? '' }
      : { data: object['data'] ?? {}, kind: 'ConfigMap', name: '' };
  const json = goJson(fields);
  const hex = createHash('sha256').update(json).digest('hex').slice(0, 10);
  const swap: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex].map((c) => swap[c] ?? c).join('');
}

/** Go's json.Marshal of maps: keys sorted, and <, >, &, U+2028, U+2029 escaped. */
function goJson(value: unknown): string {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${goJson(key)}:${goJson((value as K8sObject)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function podSpecOf(object: K8sObject): K8sObject {
  return object['spec'].template.spec;
}

function containersOf(podSpec: K8sObject): K8sObject[] {
  return [...(podSpec['initContainers'] ?? []), ...(podSpec['containers'] ?? [])];
}

function renameReferences(podSpec: K8sObject, renamed: Map<string, string>): void {
  const rename = (ref: K8sObject | undefined, kind: string, field = 'name') => {
    if (ref && renamed.has(`${kind}/${ref[field]}`)) ref[field] = renamed.get(`${kind}/${ref[field]}`);
  };
  for (const container of containersOf(podSpec)) {
    for (const source of container['envFrom'] ?? []) {
      rename(source.configMapRef, 'ConfigMap');
      rename(source.secretRef, 'Secret');
    }
    for (const variable of container['env'] ?? []) {
      rename(variable.valueFrom?.configMapKeyRef, 'ConfigMap');
      rename(variable.valueFrom?.secretKeyRef, 'Secret');
    }
  }
  for (const volume of podSpec['volumes'] ?? []) {
    rename(volume.configMap, 'ConfigMap');
    rename(volume.secret, 'Secret', 'secretName');
    for (const source of volume.projected?.sources ?? []) {
      rename(source.configMap, 'ConfigMap');
      rename(source.secret, 'Secret');
    }
  }
}

function addLabels(items: Item[], { pairs, includeSelectors, includeTemplates }: K8sObject): void {
  if (includeSelectors) throw new Error('labels with includeSelectors: not supported by the test renderer');
  for (const { object } of items) {
    object['metadata'].labels = { ...object['metadata'].labels, ...pairs };
    if (!includeTemplates || !POD_TEMPLATE_KINDS.has(object['kind'])) continue;
    const template = object['spec'].template;
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...pairs } };
    for (const claim of object['spec'].volumeClaimTemplates ?? []) claim.metadata = { ...claim.metadata, labels: { ...claim.metadata?.labels, ...pairs } };
  }
}

function setImage(items: Item[], { name, newName, newTag, digest }: K8sObject): void {
  for (const { object } of items) {
    if (!POD_TEMPLATE_KINDS.has(object['kind'])) continue;
    for (const container of containersOf(podSpecOf(object))) {
      const image = container['image'] as string;
      const [, repository, tag] = /^(.*?)(?:@(.*)|:([^/:]*))?$/.exec(image) ?? [];
      if (repository !== name) continue;
      const reference = digest ? `@${digest}` : newTag ? `:${newTag}` : tag ? image.slice(repository.length) : '';
      container['image'] = `${newName ?? repository}${reference}`;
    }
  }
}

function matches(object: K8sObject, target: K8sObject): boolean {
  const unknown = Object.keys(target).filter((field) => !['group', 'version', 'kind', 'name'].includes(field));
  if (unknown.length) throw new Error(`patch target: not supported by the test renderer: ${unknown.join(', ')}`);
  const [group, version] = (object['apiVersion'] as string).includes('/') ? (object['apiVersion'] as string).split('/') : ['', object['apiVersion']];
  const anchored = (pattern: string, value: string) => new RegExp(`^(?:${pattern})$`).test(value);
  return (
    (target['group'] === undefined || target['group'] === group) &&
    (target['version'] === undefined || target['version'] === version) &&
    (target['kind'] === undefined || anchored(target['kind'], object['kind'])) &&
    (target['name'] === undefined || anchored(target['name'], object['metadata'].name))
  );
}

function applyPatch(items: Item[], dir: string, { target, patch, path }: K8sObject): void {
  if (!target) throw new Error('patches without a target: not supported by the test renderer');
  const text = patch ?? readFileSync(join(dir, path), 'utf8');
  const [parsed] = parseYamlDocuments(text as string, `patch of ${JSON.stringify(target)}`);
  const selected = items.filter(({ object }) => matches(object, target));
  if (!Array.isArray(parsed)) {
    if (parsed['$patch'] !== 'delete') throw new Error('strategic merge patches other than $patch: delete: not supported by the test renderer');
    for (const item of selected) items.splice(items.indexOf(item), 1);
    return;
  }
  for (const { object } of selected) for (const operation of parsed) applyOperation(object, operation);
}

/** One JSON 6902 operation (add, replace, remove), in place, as kustomize applies it. */
function applyOperation(object: K8sObject, { op, path, value }: K8sObject): void {
  const tokens = (path as string)
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = tokens.pop()!;
  const parent = tokens.reduce<K8sObject>((node, token) => {
    if (node?.[token] === undefined) throw new Error(`patch ${op} ${path}: no ${token}`);
    return node[token];
  }, object);
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (op === 'add') parent.splice(index, 0, value);
    else if (op === 'replace') parent[index] = value;
    else if (op === 'remove') parent.splice(index, 1);
    else throw new Error(`patch op ${op}: not supported by the test renderer`);
    return;
  }
  // kustomize also replaces a field that is absent (adds it), unlike RFC 6902.
  if (op === 'remove' && !(last in parent)) throw new Error(`patch ${op} ${path}: no ${last}`);
  if (op === 'add' || op === 'replace') parent[last] = value;
  else if (op === 'remove') delete parent[last];
  else throw new Error(`patch op ${op}: not supported by the test renderer`);
}
