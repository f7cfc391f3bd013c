export { hitsStreamConfig } from './hits-stream-config';
export type { HitsStreamConfig } from './hits-stream-config';
export { ensureHitsStream } from './hits-stream';
export type { HitsStreamSettings } from './hits-stream';
export { HitsStreamConsumer, StreamHitsRefusedError } from './hits-stream-consumer';
export type { HitsStreamConsumerOptions } from './hits-stream-consumer';
