import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { tempDir } from '@funnel/testing';

const root = resolve(__dirname, '..', '..', '..');

describe('what an app loads at start', () => {
  it('leaves out the EventStoreDB client and the MongoDB driver when it runs on the embedded stores', () => {
    const dir = tempDir('start-modules');
    try {
      const output = execFileSync(process.execPath, ['-r', join(root, 'tools', 'register.js'), join(__dirname, 'fixtures', 'start-modules.fixture.ts')], {
        cwd: root,
        env: { PATH: process.env['PATH'], DATA_DIR: dir.path },
        encoding: 'utf8',
        timeout: 60_000,
      });
      const packages = JSON.parse(output.trim().split('\n').pop()!) as string[];
      // The fixture did load the app's code (Nest, NATS, the SQLite driver).
      expect(packages).toEqual(expect.arrayContaining(['@nestjs/core', 'nats', 'better-sqlite3']));
      // Each of these costs every start about 0.1 s of CPU (gRPC, the driver and its BSON) for nothing.
      expect(packages.filter((name) => ['@eventstore/db-client', '@grpc/grpc-js', 'mongodb', 'bson'].includes(name))).toEqual([]);
    } finally {
      dir.remove();
    }
  });
});
