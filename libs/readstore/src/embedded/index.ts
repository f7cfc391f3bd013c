export { EmbeddedReadStore } from './embedded-read-store';
export type { EmbeddedReadStoreOptions } from './embedded-read-store';
export { EmbeddedStoreError } from './errors';
