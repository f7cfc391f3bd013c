/**
 * `npm run cli -- <command>`: operator commands against the configured stores (same environment
 * as the services): `users:create` (./users.ts) and `identity-keys:create|rotate` (./identity-keys.ts).
 */
import 'reflect-metadata';
import { CliIo, runCli } from './users';
import { isIdentityKeysCommand, runIdentityKeysCli } from './identity-keys';

const argv = process.argv.slice(2);
const io: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
void (isIdentityKeysCommand(argv[0]) ? runIdentityKeysCli(argv, io) : runCli(argv, process.env, io)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
