import { ASSET_EVENTS_STREAM } from '@funnel/contracts';
import type { NatsPermissions } from './nats-permissions';

/** The subjects a reader of the asset events receives them on: `<prefix>.<reader>`, its consumer's delivery subject. */
export const DEFAULT_EVENTS_READER_INBOX_PREFIX = '_INBOX_events';

/** A reader's name: its NATS user's durable consumer of the stream, one subject token. */
export const JETSTREAM_READER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** The JetStream streams and key-value buckets an app owns, with the JetStream API answers on its own inboxes. */
export interface NatsJetStreamUse {
  /**
   * Streams it creates and updates. It publishes to their subjects: its own `<root>.events.>`, or
   * `<subjectPrefix>.>` (a work queue: the gateway may never send there). With `consumes` it also
   * reads them through its own consumers and acknowledges their messages.
   */
  streams: readonly {
    stream: string;
    subjectPrefix?: string;
    consumes?: boolean;
    /**
     * It creates the durable consumers of the stream's readers (jetStreamReaderPermissions), which
     * may then only receive and acknowledge what those consumers deliver to them.
     */
    readers?: boolean;
  }[];
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

/** The readers' durable consumers: create or update one (by name), look one up. */
function readerConsumersAdmin(stream: string): string[] {
  return [`$JS.API.CONSUMER.CREATE.${stream}.>`, `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`, `$JS.API.CONSUMER.INFO.${stream}.>`];
}

/** What an app needs to publish: `$JS.API.INFO`, its streams' and buckets' administration and subjects, its consumers, its buckets' keys. */
export function jetStreamWriterPublishAllow(use: NatsJetStreamUse): string[] {
  return [
    '$JS.API.INFO',
    ...use.streams.flatMap(({ stream, subjectPrefix, consumes, readers }) => [
      // A consumer's `$JS.API.STREAM.*.<stream>` covers the administration.
      ...(consumes ? [] : streamAdmin(stream)),
      ...(subjectPrefix ? [`${subjectPrefix}.>`] : []),
      ...(consumes ? streamConsumer(stream) : []),
      ...(readers ? readerConsumersAdmin(stream) : []),
    ]),
    ...(use.keyValueBuckets ?? []).flatMap((bucket) => [
      ...streamAdmin(`KV_${bucket}`),
      `$JS.API.STREAM.MSG.GET.KV_${bucket}`,
      `$JS.API.DIRECT.GET.KV_${bucket}.>`,
      `$KV.${bucket}.>`,
    ]),
  ];
}

/** Where a reader's durable consumer delivers: `_INBOX_events.<reader>` (the only subject the reader may subscribe to). */
export function jetStreamReaderDeliverSubject(reader: string): string {
  if (!JETSTREAM_READER_NAME.test(reader)) throw new Error(`a reader's name is 1..64 letters, digits, _ and -, got ${JSON.stringify(reader)}`);
  return `${DEFAULT_EVENTS_READER_INBOX_PREFIX}.${reader}`;
}

/**
 * A reader of one stream (an internal service following the asset events, `npm run cli -- events:tail`).
 * It cannot create, change or pull from a consumer: JetStream delivers to the subject a consumer names
 * (a push consumer's delivery subject, a pull request's reply subject), and NATS permissions cannot
 * limit what a request body or a reply subject names, so a reader allowed either could have the stream
 * delivered onto any subject (another app's inbox, `billing.…`). Instead the stream's owner
 * (assets-service, `ASSET_EVENTS_READERS`) creates for each reader a durable consumer delivering to
 * `_INBOX_events.<reader>` (jetStreamReaderDeliverSubject), and the reader may only subscribe there
 * and acknowledge what it received. Give such a user these permissions in nats-server's configuration
 * (natsAuthorizationConfig's `extraUsers`).
 */
export function jetStreamReaderPermissions(reader: string, stream: string = ASSET_EVENTS_STREAM): NatsPermissions {
  return {
    publish: { allow: [`$JS.ACK.${stream}.${reader}.>`] },
    subscribe: { allow: [jetStreamReaderDeliverSubject(reader)] },
  };
}
