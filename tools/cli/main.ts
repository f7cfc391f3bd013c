/**
 * `npm run -s cli -- <command>`: operator commands against the configured stores (same environment
 * as the services), listed in ./commands.ts; `--help` lists them, `<command> --help` shows its usage.
 */
import 'reflect-metadata';
import { runCommand } from './commands';
import type { CliIo } from './users';

const io: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** A command that runs until stopped (events:tail) stops on Ctrl-C or SIGTERM, closes what it opened and exits 0. */
function untilInterrupted(): AbortSignal {
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  return stop.signal;
}

void runCommand(process.argv.slice(2), process.env, io, untilInterrupted()).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
