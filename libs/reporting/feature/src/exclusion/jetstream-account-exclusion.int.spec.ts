import { randomUUID } from 'node:crypto';
import { startNatsServer, type RunningNatsServer } from '@funnel/testing';
import { connect, type NatsConnection } from 'nats';
import { describeAccountExclusionContract } from './account-exclusion.contract';
import { JetStreamAccountExclusion } from './jetstream-account-exclusion';

let server: RunningNatsServer;
const connections: NatsConnection[] = [];
const exclusions: JetStreamAccountExclusion[] = [];

beforeAll(async () => {
  server = await startNatsServer();
});

afterAll(async () => {
  await server.stop();
});

const open = async (bucket: string, extra: { ttlMs?: number; holder?: string } = {}) => {
  const connection = await connect({ servers: server.url });
  connections.push(connection);
  const exclusion = new JetStreamAccountExclusion({ connection, bucket, pollMs: 20, ...extra });
  exclusions.push(exclusion);
  return { exclusion, connection };
};
const closeAll = async () => {
  await Promise.all(exclusions.splice(0).map((exclusion) => exclusion.close()));
  await Promise.all(connections.splice(0).map((connection) => connection.close()));
};
const uniqueBucket = () => `LEASES_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

describeAccountExclusionContract('JetStream KV', async () => (await open(uniqueBucket())).exclusion, closeAll);

describe('JetStreamAccountExclusion across processes', () => {
  afterEach(closeAll);

  it('lets one holder of an account run at a time across two processes, and deletes the lease on release', async () => {
    const bucket = uniqueBucket();
    const first = await open(bucket);
    const second = await open(bucket);
    let running = 0;
    let most = 0;
    const ran: string[] = [];
    const job = async (exclusion: JetStreamAccountExclusion, name: string) => {
      const hold = await exclusion.acquire('ACCOUNT00001');
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 30));
      ran.push(name);
      running -= 1;
      await hold.release();
    };
    await Promise.all([job(first.exclusion, 'a'), job(second.exclusion, 'b'), job(first.exclusion, 'c'), job(second.exclusion, 'd')]);
    expect(ran.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(most).toBe(1);
    const kv = await first.connection.jetstream().views.kv(bucket);
    expect((await kv.get('ACCOUNT00001'))?.operation).not.toBe('PUT');
  });

  it("gives a dead holder's account to another process once the lease ttl ran out", async () => {
    const bucket = uniqueBucket();
    const dying = await open(bucket, { ttlMs: 600, holder: 'dying' });
    await dying.exclusion.acquire('ACCOUNT00001');
    // The process dies holding the lease: no release, no more renewals.
    await dying.connection.close();
    const survivor = await open(bucket, { ttlMs: 600, holder: 'survivor' });
    const hold = await survivor.exclusion.acquire('ACCOUNT00001');
    const kv = await survivor.connection.jetstream().views.kv(bucket);
    expect(JSON.parse((await kv.get('ACCOUNT00001'))!.string())).toMatchObject({ holder: 'survivor' });
    await hold.release();
  });

  it('keeps a live holder past the ttl by renewing its lease', async () => {
    const bucket = uniqueBucket();
    const holder = await open(bucket, { ttlMs: 300, holder: 'holder' });
    const waiter = await open(bucket, { ttlMs: 300, holder: 'waiter' });
    const hold = await holder.exclusion.acquire('ACCOUNT00001');
    let taken = false;
    const waiting = waiter.exclusion.acquire('ACCOUNT00001').then((h) => {
      taken = true;
      return h;
    });
    // Three ttls: a lease not renewed would have been taken over.
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(taken).toBe(false);
    await hold.release();
    await (await waiting).release();
    expect(taken).toBe(true);
  });
});
