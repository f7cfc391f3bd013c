import { whyDockerIsUnavailable } from '@funnel/testing';
import { MongoClient } from 'mongodb';
import type { StartedTestContainer } from 'testcontainers';
import { MongoReadStore } from './mongo-read-store';
import { describeReadStoreContract } from './read-store.contract';

/**
 * Runs the ReadStore contract against MongoDB: MONGO_URL when set, else a throwaway mongo:7
 * container when a Docker engine answers. Otherwise registers a todo (not a pass) saying why.
 */

type MongoTarget = { url: string } | { docker: true } | { skipped: string };

const target = resolveTarget();

if ('skipped' in target) {
  process.stdout.write(`MongoDB contract suite not run: ${target.skipped}\n`);
  test.todo(`MongoDB contract suite: not run (${target.skipped})`);
} else {
  const runId = `readstore_contract_${process.pid}_${Date.now().toString(36)}`;
  let url = 'url' in target ? target.url : '';
  let container: StartedTestContainer | undefined;
  let admin: MongoClient | undefined;
  let databases = 0;

  beforeAll(async () => {
    if ('docker' in target) {
      const { GenericContainer, Wait } = await import('testcontainers');
      container = await new GenericContainer('mongo:7').withExposedPorts(27017).withWaitStrategy(Wait.forListeningPorts()).start();
      url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
    }
    admin = await MongoClient.connect(url);
  }, 180_000);

  afterAll(async () => {
    await admin?.close();
    await container?.stop();
  });

  describeReadStoreContract('mongodb', async () => {
    // A database per test keeps tests apart; it is dropped on cleanup.
    const dbName = `${runId}_${++databases}`;
    const store = await MongoReadStore.connect({ url, dbName });
    return {
      store,
      cleanup: async () => {
        await store.close();
        await admin?.db(dbName).dropDatabase();
      },
    };
  });
}

function resolveTarget(): MongoTarget {
  const mongoUrl = process.env['MONGO_URL'];
  if (mongoUrl) return { url: mongoUrl };
  const dockerUnavailable = whyDockerIsUnavailable();
  return dockerUnavailable === undefined ? { docker: true } : { skipped: `MONGO_URL is not set and no Docker engine answers (${dockerUnavailable})` };
}
