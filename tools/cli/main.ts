/**
 * `npm run cli -- <command>`: operator commands against the configured stores (same environment
 * as the services): `users:create` (./users.ts), `identity-keys:create|rotate` (./identity-keys.ts) and
 * `nats-credentials:create|rotate|retire` (./nats-credentials.ts) and `hits:import` (./hits-import.ts).
 */
import 'reflect-metadata';
import { CliIo, runCli } from './users';
import { isIdentityKeysCommand, runIdentityKeysCli } from './identity-keys';
import { isNatsCredentialsCommand, runNatsCredentialsCli } from './nats-credentials';
import { isHitsCommand, runHitsCli } from './hits-import';

const argv = process.argv.slice(2);
const io: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
const run = isIdentityKeysCommand(argv[0])
  ? runIdentityKeysCli(argv, io)
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
