import { createHash } from 'node:crypto';
import { Test } from '@nestjs/testing';
import { INestApplicationContext } from '@nestjs/common';
import { CallerContext, SHORT_LINK_KIND, generateAssetId } from '@funnel/contracts';
import { EventStore, SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import { AssetsFeatureModule } from './assets-feature.module';
import { AssetCommands } from './asset-commands';
import { AssetQueries } from './asset-queries';

type Appended = { type: string; data: Record<string, unknown> }[];

/** Holds appends a test names until it lets them go, to force an interleaving of concurrent saves. */
class AppendGate {
  private holds: { matches: (stream: string, events: Appended) => boolean; reached: () => void; gate: Promise<void> }[] = [];

  constructor(readonly inner: EventStore) {}

  /** The next append `matches` accepts waits for `release()`; `reached` resolves once it waits. */
  hold(matches: (stream: string, events: Appended) => boolean): { reached: Promise<void>; release: () => void } {
    let reached!: () => void;
    let release!: () => void;
    const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.holds.push({ matches, reached, gate });
    return { reached: reachedPromise, release };
  }

  wrap(): EventStore {
    return new Proxy(this.inner, {
      get: (target, property, receiver) => {
        if (property !== 'append') return Reflect.get(target, property, receiver);
        return async (stream: string, events: Appended, ...rest: unknown[]) => {
          const index = this.holds.findIndex((h) => h.matches(stream, events));
          if (index >= 0) {
            const [held] = this.holds.splice(index, 1);
            held.reached();
            await held.gate;
          }
          return (target.append as (...args: unknown[]) => unknown)(stream, events, ...rest);
        };
      },
    });
  }
}

const context: CallerContext = { accountId: 'ACCOUNT00001', userId: 'U', permissions: [], correlationId: 'test' };
const kind = SHORT_LINK_KIND;

describe('unique values (short-link slugs) under concurrent saves', () => {
  let app: INestApplicationContext;
  let eventStore: SqliteEventStore;
  let gate: AppendGate;
  let commands: AssetCommands;
  let queries: AssetQueries;

  beforeEach(async () => {
    eventStore = new SqliteEventStore({ filename: ':memory:' });
    gate = new AppendGate(eventStore);
    const moduleRef = await Test.createTestingModule({
      imports: [AssetsFeatureModule.forRoot({ eventStore: gate.wrap(), readStore: new EmbeddedReadStore() })],
    }).compile();
    app = moduleRef;
    await app.init();
    commands = app.get(AssetCommands);
    queries = app.get(AssetQueries);
  });
  afterEach(async () => {
    await app.close();
    await eventStore.close();
  });

  const slug = (name: string) => `${name}-${generateAssetId()}`;
  const link = (over: Record<string, unknown> = {}) => ({
    idShortLink: generateAssetId(),
    shortLinkName: 'link',
    slug: slug('s'),
    destinationUrl: 'https://example.com/',
    ...over,
  });
  const create = (body: Record<string, unknown>) => commands.create(kind, context, { query: {}, body });
  const update = (body: Record<string, unknown>) => commands.update(kind, context, { query: {}, body });
  const remove = (id: string) => commands.delete(kind, context, { query: {}, body: { entries: [id] } });
  const bySlug = async (value: string) => {
    try {
      return await queries.findBySlug(kind, context, { query: { slug: value }, body: undefined });
    } catch {
      return null;
    }
  };
  /** An update of the link named `name` on its way to its asset stream. */
  const linkUpdateNamed = (name: string) => (_stream: string, events: Appended) =>
    events.some((e) => e.type === 'ShortLinkUpdated' && (e.data.record as Record<string, unknown>).shortLinkName === name);
  const slugTaken = { status: 409, code: 'SHORTLINK.SLUG_TAKEN' };

  it("two saves of one link changing A to B, the losing one claiming B first: B stays the link's, no other link can take it", async () => {
    const body = link();
    await create(body);
    const target = slug('b');
    // The losing save claims B, loads the link at revision 0 and is held before its append.
    const loser = gate.hold(linkUpdateNamed('loser'));
    const losing = update({ ...body, slug: target, shortLinkName: 'loser' });
    await loser.reached;
    // The winning save, on the same revision, finds B claimed by the link itself and saves.
    await update({ ...body, slug: target, shortLinkName: 'winner' });
    loser.release();
    await expect(losing).rejects.toMatchObject({ status: 409, code: 'ASSET.CONCURRENT_MODIFICATION' });

    expect(await bySlug(target)).toMatchObject({ idShortLink: body.idShortLink, shortLinkName: 'winner' });
    await expect(create(link({ slug: target }))).rejects.toMatchObject(slugTaken);
    // A, given up by the saved update, is free.
    await create(link({ slug: body.slug }));
  });

  it('a save giving up B while a later save of the same link takes B again and commits: B stays claimed', async () => {
    const body = link();
    await create(body);
    const other = slug('c');
    // The save B -> C commits, then is held before it releases B.
    const releasing = gate.hold((stream, events) => stream.startsWith('claim-') && events.some((e) => e.type === 'UniqueValueReleased'));
    const away = update({ ...body, slug: other, shortLinkName: 'away' });
    await releasing.reached;
    // Meanwhile the link is saved back to B (C -> B) and commits.
    await update({ ...body, shortLinkName: 'back' });
    releasing.release();
    await away;

    expect(await bySlug(body.slug)).toMatchObject({ idShortLink: body.idShortLink, shortLinkName: 'back' });
    await expect(create(link({ slug: body.slug }))).rejects.toMatchObject(slugTaken);
    // C, given up by the second save, is free.
    await create(link({ slug: other }));
  });

  it('a refused save gives back the value it claimed when no other save holds it; the link keeps its own', async () => {
    const body = link();
    await create(body);
    const wanted = slug('b');
    const held = gate.hold(linkUpdateNamed('refused'));
    const refused = update({ ...body, slug: wanted, shortLinkName: 'refused' });
    await held.reached;
    await update({ ...body, shortLinkName: 'renamed' });
    held.release();
    await expect(refused).rejects.toMatchObject({ status: 409 });

    await create(link({ slug: wanted }));
    await expect(create(link({ slug: body.slug }))).rejects.toMatchObject(slugTaken);
  });

  it("a refused re-create of an existing id keeps that link's value; one with another value gives that back", async () => {
    const body = link();
    await create(body);
    await expect(create({ ...body, shortLinkName: 'again' })).rejects.toMatchObject({ status: 409, code: 'ASSET.ALREADY_EXISTS' });
    await expect(create(link({ slug: body.slug }))).rejects.toMatchObject(slugTaken);
    const other = slug('o');
    await expect(create({ ...body, slug: other })).rejects.toMatchObject({ status: 409, code: 'ASSET.ALREADY_EXISTS' });
    await create(link({ slug: other }));
  });

  it('a delete racing a save of the link that takes a new value: both values are free afterwards', async () => {
    const body = link();
    await create(body);
    const wanted = slug('b');
    const held = gate.hold(linkUpdateNamed('late'));
    const late = update({ ...body, slug: wanted, shortLinkName: 'late' });
    await held.reached;
    await remove(body.idShortLink);
    held.release();
    await expect(late).rejects.toMatchObject({ status: 409 });

    await create(link({ slug: wanted }));
    await create(link({ slug: body.slug }));
  });

  it('reads claims written before tokens: the holder keeps its value and gives it up when it changes', async () => {
    const body = link();
    const digest = createHash('sha256').update(body.slug).digest('hex').slice(0, 40);
    await eventStore.append(`claim-${context.accountId}.shortlink.slug.${digest}`, [
      { type: 'UniqueValueClaimed', data: { assetId: body.idShortLink, claimedAt: new Date().toISOString() } },
    ]);
    await create(body);
    await expect(create(link({ slug: body.slug }))).rejects.toMatchObject(slugTaken);
    await update({ ...body, slug: slug('n') });
    await create(link({ slug: body.slug }));
  });

  it('of twenty concurrent creates with one value exactly one is saved, and the value is then its', async () => {
    const value = slug('race');
    const bodies = Array.from({ length: 20 }, () => link({ slug: value }));
    const results = await Promise.allSettled(bodies.map((b) => create(b)));
    const saved = results.flatMap((r, i) => (r.status === 'fulfilled' ? [bodies[i]] : []));
    expect(saved).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject(slugTaken);
    expect(await bySlug(value)).toMatchObject({ idShortLink: saved[0].idShortLink });
  });
});
