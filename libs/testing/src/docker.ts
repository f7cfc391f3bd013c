import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Returns undefined when a Docker engine answers a ping within 2 s, else the reason it does not.
 * Contract suites backed by a throwaway container call it while Jest collects tests, to register a
 * todo saying why instead of failing when there is no engine.
 */
export function whyDockerIsUnavailable(): string | undefined {
  const dockerHost = process.env['DOCKER_HOST'];
  let target: { socketPath: string } | { host: string; port: number };
  if (dockerHost) {
    const url = new URL(dockerHost);
    if (url.protocol === 'unix:') target = { socketPath: url.pathname };
    else if (url.protocol === 'tcp:' || url.protocol === 'http:') target = { host: url.hostname, port: Number(url.port || 2375) };
    else return `DOCKER_HOST=${dockerHost} is not a unix or tcp address`;
  } else {
    const candidates = [
      '/var/run/docker.sock',
      join(homedir(), '.docker', 'run', 'docker.sock'),
      ...(process.env['XDG_RUNTIME_DIR'] ? [join(process.env['XDG_RUNTIME_DIR'], 'docker.sock')] : []),
    ];
    const socketPath = candidates.find((candidate) => existsSync(candidate));
    if (!socketPath) return 'DOCKER_HOST is not set and there is no docker.sock';
    target = { socketPath };
  }
  // Jest registers tests synchronously, so the ping runs in a short-lived child process.
  const ping = `
    const request = require('node:http').get({ ...${JSON.stringify(target)}, path: '/_ping', timeout: 1800 }, (response) =>
      process.exit(response.statusCode === 200 ? 0 : 1));
    request.on('timeout', () => process.exit(1));
    request.on('error', () => process.exit(1));`;
  const result = spawnSync(process.execPath, ['-e', ping], { timeout: 2000, stdio: 'ignore' });
  return result.status === 0 ? undefined : `${JSON.stringify(target)} did not answer a Docker ping within 2 s`;
}
