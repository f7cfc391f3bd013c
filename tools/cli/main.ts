/**
 * `npm run cli -- <command>`: operator commands against the configured stores (same environment
 * as the services): `users:create` (./users.ts), `identity-keys:create|rotate` (./identity-keys.ts),
 * `asset-secrets:create|rotate` (./asset-secrets.ts),
 * `nats-credentials:create|rotate|retire` (./nats-credentials.ts), `events:tail` (./events-tail.ts) and
 * `hits:import` (./hits-import.ts).
 */
import 'reflect-metadata';
import { CliIo, runCli } from './users';
import { isIdentityKeysCommand, runIdentityKeysCli } from './identity-keys';
import { isAssetSecretsCommand, runAssetSecretsCli } from './asset-secrets';
import { isNatsCredentialsCommand, runNatsCredentialsCli } from './nats-credentials';
import { isEventsTailCommand, runEventsTailCli } from './events-tail';
import { isHitsCommand, runHitsCli } from './hits-import';

const argv = process.argv.slice(2);
const io: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
/** events:tail runs until Ctrl-C (or SIGTERM), then closes its consumer and exits 0. */
function untilInterrupted(): AbortSignal {
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  return stop.signal;
}
const run = isEventsTailCommand(argv[0])
  ? runEventsTailCli(argv, process.env, io, untilInterrupted())
  : isIdentityKeysCommand(argv[0])
    ? runIdentityKeysCli(argv, io)
    : isAssetSecretsCommand(argv[0])
      ? runAssetSecretsCli(argv, io)
      : isNatsCredentialsCommand(argv[0])
        ? runNatsCredentialsCli(argv, io)
        : isHitsCommand(argv[0])
          ? runHitsCli(argv, process.env, io)
          : runCli(argv, process.env, io);
void run.then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
