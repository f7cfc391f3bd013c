export { hitsStreamConfig } from './hits-stream-config';
export type { HitsStreamConfig } from './hits-stream-config';
export { ensureHitsStream, hitsStreamsOf } from './hits-stream';
export type { HitsStreamNames, HitsStreamSettings } from './hits-stream';
export { HitsStreamConsumer, StreamHitsRefusedError } from './hits-stream-consumer';
export type { HitsStreamConsumerOptions } from './hits-stream-consumer';
