import { ASSET_EVENTS_STREAM } from '@funnel/contracts';
import type { NatsPermissions } from './nats-permissions';

/** The reply inboxes of a reader of the asset events (`npm run cli -- events:tail`'s default NATS_INBOX_PREFIX). */
export const DEFAULT_EVENTS_READER_INBOX_PREFIX = '_INBOX_events';

/** The JetStream streams and key-value buckets an app owns, with the JetStream API answers on its own inboxes. */
export interface NatsJetStreamUse {
  /**
   * Streams it creates and updates. It publishes to their subjects: its own `<root>.events.>`, or
   * `<subjectPrefix>.>` (a work queue: the gateway may never send there). With `consumes` it also
   * reads them through its own consumers and acknowledges their messages.
   */
  streams: readonly { stream: string; subjectPrefix?: string; consumes?: boolean }[];
  /** Key-value buckets it creates, reads and writes. */
  keyValueBuckets?: readonly string[];
  /** Prefix of its reply inboxes (its NATS_INBOX_PREFIX) when it makes no service `calls` (whose inboxes serve then). */
  inboxPrefix?: string;
}

/** The JetStream API subjects one stream's owner needs: look it up, create it, change its configuration. */
function streamAdmin(stream: string): string[] {
  return [`$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.CREATE.${stream}`, `$JS.API.STREAM.UPDATE.${stream}`];
}

/** A work queue's consumers: create and look up its durable consumer, pull from it, acknowledge, read a job by subject. */
function streamConsumer(stream: string): string[] {
  return [
    `$JS.API.STREAM.*.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.CONSUMER.*.${stream}`,
    `$JS.API.CONSUMER.*.${stream}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
    `$JS.ACK.${stream}.>`,
  ];
}

/** What an app needs to publish: `$JS.API.INFO`, its streams' and buckets' administration and subjects, its consumers, its buckets' keys. */
export function jetStreamWriterPublishAllow(use: NatsJetStreamUse): string[] {
  return [
    '$JS.API.INFO',
    ...use.streams.flatMap(({ stream, subjectPrefix, consumes }) => [
      // A consumer's `$JS.API.STREAM.*.<stream>` covers the administration.
      ...(consumes ? [] : streamAdmin(stream)),
      ...(subjectPrefix ? [`${subjectPrefix}.>`] : []),
      ...(consumes ? streamConsumer(stream) : []),
    ]),
    ...(use.keyValueBuckets ?? []).flatMap((bucket) => [
      ...streamAdmin(`KV_${bucket}`),
      `$JS.API.STREAM.MSG.GET.KV_${bucket}`,
      `$JS.API.DIRECT.GET.KV_${bucket}.>`,
      `$KV.${bucket}.>`,
    ]),
  ];
}

/**
 * A reader of one stream (an internal service following the asset events, `npm run cli -- events:tail`):
 * it may look the stream up, create, read, acknowledge and delete consumers of it (ordered,
 * ephemeral or durable; pull or push), and receive on its own inboxes; it cannot publish to the
 * stream's subjects nor touch another stream. Give such a user these permissions in nats-server's
 * configuration (natsAuthorizationConfig's `extraUsers`) and NATS_INBOX_PREFIX = `inboxPrefix`.
 */
export function jetStreamReaderPermissions(inboxPrefix: string = DEFAULT_EVENTS_READER_INBOX_PREFIX, stream: string = ASSET_EVENTS_STREAM): NatsPermissions {
  const api = '$JS.API';
  return {
    publish: {
      allow: [
        `${api}.INFO`,
        `${api}.STREAM.INFO.${stream}`,
        `${api}.CONSUMER.CREATE.${stream}`,
        `${api}.CONSUMER.CREATE.${stream}.>`,
        `${api}.CONSUMER.DURABLE.CREATE.${stream}.>`,
        `${api}.CONSUMER.INFO.${stream}.>`,
        `${api}.CONSUMER.DELETE.${stream}.>`,
        `${api}.CONSUMER.MSG.NEXT.${stream}.>`,
        `$JS.ACK.${stream}.>`,
        `$JS.FC.${stream}.>`,
      ],
    },
    subscribe: { allow: [`${inboxPrefix}.>`] },
  };
}
