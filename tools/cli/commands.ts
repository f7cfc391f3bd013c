/**
 * The CLI's commands, one entry each: its name, a one-line summary for `--help`, its usage for
 * `<command> --help` (and with a usage error), and how it runs. `runCommand` dispatches on argv[0].
 */
import { ASSET_SECRETS_USAGE, runAssetSecretsCli } from './asset-secrets';
import { EVENTS_TAIL_USAGE, runEventsTailCli } from './events-tail';
import { HITS_IMPORT_USAGE, runHitsCli } from './hits-import';
import { IDENTITY_KEYS_USAGE, runIdentityKeysCli } from './identity-keys';
import { NATS_CREDENTIALS_USAGE, runNatsCredentialsCli } from './nats-credentials';
import { type CliIo, USAGE as USERS_USAGE, runCli as runUsersCli } from './users';

export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  /** Resolves to the exit code (0 done, 1 failed, 2 bad arguments); `signal` aborts a command that runs until stopped. */
  run(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo, signal: AbortSignal): Promise<number>;
}

export const CLI_COMMANDS: readonly CliCommand[] = [
  {
    name: 'users:create',
    summary: 'create an account and its user (all permissions), optionally with an API key, in the configured stores',
    usage: USERS_USAGE,
    run: (argv, env, io) => runUsersCli(argv, env, io),
  },
  {
    name: 'identity-keys:create',
    summary: 'write a new key file of the identity service (token signing, TOTP-secret encryption)',
    usage: IDENTITY_KEYS_USAGE,
    run: (argv, _env, io) => runIdentityKeysCli(argv, io),
  },
  {
    name: 'identity-keys:rotate',
    summary: 'put a new signing and encryption key in front of an identity key file (the old ones keep verifying)',
    usage: IDENTITY_KEYS_USAGE,
    run: (argv, _env, io) => runIdentityKeysCli(argv, io),
  },
  {
    name: 'asset-secrets:create',
    summary: "write a new key file for assets' write-only secrets (ASSET_SECRETS_FILE)",
    usage: ASSET_SECRETS_USAGE,
    run: (argv, _env, io) => runAssetSecretsCli(argv, io),
  },
  {
    name: 'asset-secrets:rotate',
    summary: 'append a new key to an asset secrets key file (it encrypts from then on; the older ones still decrypt)',
    usage: ASSET_SECRETS_USAGE,
    run: (argv, _env, io) => runAssetSecretsCli(argv, io),
  },
  {
    name: 'nats-credentials:create',
    summary: "write a NATS user per distributed app, nats-server's authorization block and each app's env file",
    usage: NATS_CREDENTIALS_USAGE,
    run: (argv, _env, io) => runNatsCredentialsCli(argv, io),
  },
  {
    name: 'nats-credentials:rotate',
    summary: 'add a new NATS user to every app; the old ones stay valid until retired',
    usage: NATS_CREDENTIALS_USAGE,
    run: (argv, _env, io) => runNatsCredentialsCli(argv, io),
  },
  {
    name: 'nats-credentials:retire',
    summary: 'remove all but the newest NATS user of each app',
    usage: NATS_CREDENTIALS_USAGE,
    run: (argv, _env, io) => runNatsCredentialsCli(argv, io),
  },
  {
    name: 'events:tail',
    summary: "print the asset events the reader's durable consumer delivers (ASSET_EVENTS), one JSON line each, until Ctrl-C",
    usage: EVENTS_TAIL_USAGE,
    run: (argv, env, io, signal) => runEventsTailCli(argv, env, io, signal),
  },
  {
    name: 'hits:import',
    summary: 'import hits from an NDJSON file, over NATS (NATS_URL) or into the hit warehouse of DATA_DIR',
    usage: HITS_IMPORT_USAGE,
    run: (argv, env, io) => runHitsCli(argv, env, io),
  },
];

const HELP = ['--help', '-h', 'help'];

/** `npm run cli -- --help`: every command with its line. */
export function commandList(): string {
  const width = Math.max(...CLI_COMMANDS.map(({ name }) => name.length));
  return [
    'usage: npm run -s cli -- <command> [arguments]   (<command> --help: its usage)',
    '',
    'commands:',
    ...CLI_COMMANDS.map(({ name, summary }) => `  ${name.padEnd(width)}  ${summary}`),
  ].join('\n');
}

/** Runs `argv` (`<command> [arguments]`); resolves to the exit code. `--help` and `<command> --help` print on stdout and exit 0. */
export async function runCommand(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo, signal: AbortSignal): Promise<number> {
  const [name, ...rest] = argv;
  if (name !== undefined && HELP.includes(name)) {
    io.out(commandList());
    return 0;
  }
  const command = CLI_COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    io.err(name === undefined ? 'error: a command is required' : `error: unknown command ${JSON.stringify(name)}`);
    io.err(commandList());
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage);
    return 0;
  }
  return command.run(argv, env, io, signal);
}
