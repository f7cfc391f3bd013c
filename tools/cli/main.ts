/**
 * `npm run cli -- <command>`: operator commands against the configured stores (same environment
 * as the services). Today: `users:create` (see ./users.ts and the README).
 */
import 'reflect-metadata';
import { runCli } from './users';

void runCli(process.argv.slice(2), process.env, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
