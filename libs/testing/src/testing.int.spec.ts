import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { connect } from 'nats';
import { freePort, startNatsServer, tempDir } from './index';

describe('startNatsServer', () => {
  it('starts a server that accepts NATS connections, with JetStream, and stops it', async () => {
    const nats = await startNatsServer();
    expect(nats.url).toBe(`nats://127.0.0.1:${nats.port}`);
    const connection = await connect({ servers: nats.url });
    try {
      const account = await (await connection.jetstreamManager()).getAccountInfo();
      expect(account.limits).toBeDefined();
    } finally {
      await connection.close();
    }
    await nats.stop();
    await expect(connect({ servers: nats.url, reconnect: false, timeout: 500 })).rejects.toMatchObject({ code: 'CONNECTION_REFUSED' });
    await nats.stop(); // idempotent
  });

  it('restarts on the same port and keeps JetStream data', async () => {
    const nats = await startNatsServer();
    try {
      let connection = await connect({ servers: nats.url });
      const manager = await connection.jetstreamManager();
      await manager.streams.add({ name: 'KEEP', subjects: ['keep.>'] });
      await connection.jetstream().publish('keep.one', new TextEncoder().encode('1'));
      await connection.close();

      await nats.restart();
      connection = await connect({ servers: nats.url });
      const info = await (await connection.jetstreamManager()).streams.info('KEEP');
      expect(info.state.messages).toBe(1);
      await connection.close();
    } finally {
      await nats.stop();
    }
  });

  it('runs with a given configuration, also after a restart', async () => {
    const nats = await startNatsServer({ jetstream: false, config: 'authorization { users = [ { user: "app", password: "app-password-0123" } ] }' });
    try {
      for (const round of ['started', 'restarted']) {
        await expect(connect({ servers: nats.url, reconnect: false })).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
        await (await connect({ servers: nats.url, reconnect: false, user: 'app', pass: 'app-password-0123' })).close();
        if (round === 'started') await nats.restart();
      }
    } finally {
      await nats.stop();
    }
  });

  it('runs several servers side by side on different ports', async () => {
    const [first, second] = await Promise.all([startNatsServer({ jetstream: false }), startNatsServer({ jetstream: false })]);
    expect(first.port).not.toBe(second.port);
    await Promise.all([first.stop(), second.stop()]);
  });

  it('says how to install nats-server when it is not on PATH', async () => {
    const path = process.env['PATH'];
    process.env['PATH'] = '/nonexistent';
    try {
      await expect(startNatsServer()).rejects.toThrow('nats-server not found on PATH: install it with apt-get install nats-server');
    } finally {
      process.env['PATH'] = path;
    }
  });

  it('fails with the server output when the port is taken', async () => {
    const blocker = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      // The blocker accepts TCP connections, so readiness is judged by the process staying up.
      await expect(startNatsServer({ port, jetstream: false, startTimeoutMs: 3000 })).rejects.toThrow(/did not start[\s\S]*address already in use/);
    } finally {
      blocker.close();
    }
  });
});

describe('freePort', () => {
  it('returns a port that can be bound', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    server.close();
    expect(port).toBeGreaterThan(0);
  });
});

describe('tempDir', () => {
  it('creates a fresh directory with the prefix and removes it on demand', () => {
    const dir = tempDir('platform test');
    expect(dir.path).toMatch(/platform_test-/);
    writeFileSync(join(dir.path, 'file.txt'), 'x');
    expect(existsSync(dir.path)).toBe(true);
    dir.remove();
    expect(existsSync(dir.path)).toBe(false);
  });

  it('gives different directories for the same prefix', () => {
    const first = tempDir('same');
    const second = tempDir('same');
    expect(first.path).not.toBe(second.path);
    first.remove();
    second.remove();
  });
});
