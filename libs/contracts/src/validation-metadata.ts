import { getMetadataStorage } from 'class-validator';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;
type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];
/** A class whose rules are looked up (class-validator types it as Function). */
type Target = Parameters<MetadataStorage['getTargetValidationMetadatas']>[0];

/** Marks a storage whose lookups are cached already. */
const CACHED = Symbol('funnel.cachedTargetValidationMetadatas');

/**
 * class-validator looks a class's rules up on every validation by testing every decorated class of
 * the process for being one of its ancestors (MetadataStorage.getTargetValidationMetadatas, a loop
 * over all of them: typestack/class-validator#2686). With the contracts' DTO classes that loop was
 * half the CPU of validating a create's body, and a body of nested objects (a funnel's nodes) pays it
 * once per object. A class's rules change only when a decorator registers one, at module load: the
 * answer is kept per class and options and forgotten whenever a rule is registered, so it is always
 * the one class-validator would give. Callers get the same array each time and must not change it
 * (neither class-validator nor the schema generators do).
 */
export function cacheTargetValidationMetadatas(storage: MetadataStorage = getMetadataStorage()): void {
  const marked = storage as MetadataStorage & { [CACHED]?: true };
  if (marked[CACHED]) return;
  marked[CACHED] = true;
  const resolve = storage.getTargetValidationMetadatas.bind(storage);
  const register = storage.addValidationMetadata.bind(storage);
  let cache = new Map<Target, Map<string, ValidationMetadata[]>>();
  storage.getTargetValidationMetadatas = (targetConstructor, targetSchema, always, strictGroups, groups) => {
    const key = `${targetSchema}\u0000${always}\u0000${strictGroups}\u0000${groups === undefined ? '' : JSON.stringify(groups)}`;
    let byOptions = cache.get(targetConstructor);
    if (!byOptions) cache.set(targetConstructor, (byOptions = new Map()));
    let metadatas = byOptions.get(key);
    if (!metadatas) byOptions.set(key, (metadatas = resolve(targetConstructor, targetSchema, always, strictGroups, groups)));
    return metadatas;
  };
  storage.addValidationMetadata = (metadata) => {
    cache = new Map();
    register(metadata);
  };
}
