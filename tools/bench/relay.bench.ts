// @funnel/contracts declares its DTOs with decorators that need the metadata API loaded first.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type NatsConnection, connect, nanos } from 'nats';
import { ASSET_KINDS, generateAssetId } from '@funnel/contracts';
import { SqliteEventStore } from '@funnel/eventstore';
import { AssetRegistry } from '@funnel/assets-domain';
import { AssetEventRelay, assetEventMessage } from '@funnel/assets-feature';
import { JetStreamPipeline } from '@funnel/platform';
import { startNatsServer } from '@funnel/testing';

const MAX_IN_FLIGHT = 4096;
const DUPLICATE_WINDOW_MS = 120_000;

export interface RelayBenchResult {
  /** Medians over the rounds. */
  relayPerSecond: number;
  baselinePerSecond: number;
  /** nats.js `jetstream().publish()`, 256 in flight: the client API the relay does not use. */
  jsPublishPerSecond: number;
  ratio: number;
  ratios: number[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Fills an embedded log with `events` visitor-tag events, 5 per asset (created, updated, archived, unarchived, moved). */
async function fillLog(file: string, events: number): Promise<SqliteEventStore> {
  const store = new SqliteEventStore({ filename: file });
  const registry = new AssetRegistry(ASSET_KINDS);
  const accountId = generateAssetId();
  const meta = { accountId, actorId: generateAssetId(), correlationId: 'bench', schemaVersion: 1, occurredAt: new Date().toISOString() };
  for (let i = 0; i < events / 5; i++) {
    const idTag = generateAssetId();
    const record = { idTag, tagName: `tag ${i}`, status: 'active', idCategory: '', color: '#00ff00' };
    await store.append(registry.streamName('visitortag', accountId, idTag), [
      { type: 'VisitorTagCreated', data: { record }, metadata: meta },
      { type: 'VisitorTagUpdated', data: { record: { ...record, tagName: `tag ${i} b` } }, metadata: meta },
      { type: 'VisitorTagArchived', data: {}, metadata: meta },
      { type: 'VisitorTagUnarchived', data: {}, metadata: meta },
      { type: 'VisitorTagMovedToCategory', data: { idCategory: '' }, metadata: meta },
    ]);
  }
  return store;
}

async function untilStored(count: () => number, total: number): Promise<void> {
  while (count() < total) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** Raw JetStream publishes of the relay's own messages, through the same pipeline, into a stream of the same configuration. */
async function baselineRound(nc: NatsConnection, messages: { subject: string; data: Uint8Array; msgId: string }[]): Promise<number> {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: 'BASELINE', subjects: ['baseline.>'], max_age: nanos(7 * 86_400_000), duplicate_window: nanos(DUPLICATE_WINDOW_MS) });
  let acked = 0;
  const pipeline = new JetStreamPipeline<number>(nc, { maxInFlight: MAX_IN_FLIGHT, onAcked: (n) => (acked = n + 1) });
  const started = performance.now();
  for (let i = 0; i < messages.length; i++) {
    if (!pipeline.hasRoom) await pipeline.room();
    pipeline.publish(`baseline.${messages[i].subject}`, messages[i].data, messages[i].msgId, i);
  }
  await untilStored(() => acked, messages.length);
  const seconds = (performance.now() - started) / 1000;
  pipeline.close();
  return messages.length / seconds;
}

async function jsPublishRound(nc: NatsConnection, messages: { subject: string; data: Uint8Array; msgId: string }[]): Promise<number> {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: 'JSPUBLISH', subjects: ['jspublish.>'], duplicate_window: nanos(DUPLICATE_WINDOW_MS) });
  const js = nc.jetstream();
  const inFlight: Promise<unknown>[] = [];
  const started = performance.now();
  for (const m of messages) {
    inFlight.push(js.publish(`jspublish.${m.subject}`, m.data, { msgID: m.msgId }));
    if (inFlight.length >= 256) await inFlight.shift();
  }
  await Promise.all(inFlight);
  return messages.length / ((performance.now() - started) / 1000);
}

/**
 * Events per second the relay moves from a pre-filled embedded log into JetStream (from start to
 * the last acknowledgement), paired in each round with a baseline on the same fresh nats-server:
 * the same payloads published raw through the same pipeline (no log to read, no payloads to build).
 */
export async function relayRate(events = 50_000, rounds = 3): Promise<RelayBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'funnel-relay-bench-'));
  const store = await fillLog(join(dir, 'events.sqlite'), events);
  const registry = new AssetRegistry(ASSET_KINDS);
  // The payloads the relay will publish, built once for the baselines.
  const messages: { subject: string; data: Uint8Array; msgId: string }[] = [];
  const encoder = new TextEncoder();
  const collect = store.subscribeToAll({
    streamNamePrefixes: registry.streamPrefixes(),
    onEvents: (batch) => {
      for (const event of batch) {
        const m = assetEventMessage(registry, event)!;
        messages.push({ subject: m.subject, data: encoder.encode(JSON.stringify(m.payload)), msgId: m.msgId });
      }
    },
  });
  await collect.caughtUp;
  await collect.stop();

  const relayRates: number[] = [];
  const baselineRates: number[] = [];
  const jsPublishRates: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const nats = await startNatsServer({ jetstream: true });
      const nc = await connect({ servers: nats.url });
      try {
        baselineRates.push(await baselineRound(nc, messages));
        if (round === 0) jsPublishRates.push(await jsPublishRound(nc, messages));
        const relay = new AssetEventRelay({
          eventStore: store,
          registry,
          connect: () => connect({ servers: nats.url }),
          maxAgeMs: 7 * 86_400_000,
          duplicateWindowMs: DUPLICATE_WINDOW_MS,
          maxInFlight: MAX_IN_FLIGHT,
          logger: { log: () => undefined, warn: (m) => console.warn(m), error: (m) => console.error(m) },
        });
        const started = performance.now();
        relay.start();
        await untilStored(() => relay.stats.stored, events);
        relayRates.push(events / ((performance.now() - started) / 1000));
        await relay.stop();
      } finally {
        await nc.close();
        await nats.stop();
      }
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const ratios = relayRates.map((rate, i) => rate / baselineRates[i]);
  return {
    relayPerSecond: median(relayRates),
    baselinePerSecond: median(baselineRates),
    jsPublishPerSecond: median(jsPublishRates),
    ratio: median(ratios),
    ratios,
  };
}

if (require.main === module) {
  void relayRate().then((r) =>
    console.log(
      `relay: ${Math.round(r.relayPerSecond)} events/s; raw pipelined publishes ${Math.round(r.baselinePerSecond)}/s (ratio ${r.ratio.toFixed(2)}: ${r.ratios
        .map((x) => x.toFixed(2))
        .join(', ')}); nats.js js.publish ${Math.round(r.jsPublishPerSecond)}/s`,
    ),
  );
}
