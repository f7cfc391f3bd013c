// Validates Kubernetes objects against the API's schemas, offline: the npm package kubernetes-models
// bundles a validator per kind and API version. Reads a JSON array of objects on stdin and prints a
// JSON array of the problems ([] when every object is valid). An ES module (kubernetes-models is
// ESM only), run with node by tools/deploy/manifests.int.spec.ts:
//   node tools/deploy/validate-manifests.mjs < objects.json
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const objects = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const problems = [];
for (const object of objects) {
  const resource = `${object.apiVersion} ${object.kind} ${object.metadata?.name}`;
  let Model;
  try {
    Model = (await import(`kubernetes-models/${object.apiVersion}/${object.kind}`))[object.kind];
  } catch {
    problems.push({ resource, problem: 'no schema for this kind and API version' });
    continue;
  }
  // kustomize writes long Secret data in lines of base64; the API server's decoder skips the newlines.
  if (object.kind === 'Secret' && object.data) {
    object.data = Object.fromEntries(Object.entries(object.data).map(([key, value]) => [key, String(value).replace(/\n/g, '')]));
  }
  try {
    new Model(object).validate();
  } catch (error) {
    problems.push({ resource, problem: error.message });
  }
}
process.stdout.write(JSON.stringify(problems));
