export { EmbeddedReadStore } from './embedded-read-store';
export { EmbeddedStoreError } from './errors';
