/**
 * `users:create`: opens an account with a user holding every permission (and, with --api-key, an
 * API key with every permission) directly in the configured stores, the way the bootstrap admin is
 * created. It appends to the event log only, so it works while the service runs on the same
 * stores: the service's projections pick the new streams up (SQLite: by polling the file).
 */
import { ServiceError } from '@funnel/contracts';
import { ConfigError, loadConfig } from '@funnel/platform';
import { CreatedUser, IdentityService } from '@funnel/identity-feature';
import { openStores, storeConfig } from '@funnel/runtime';

export const USAGE = [
  'usage: npm run -s cli -- users:create --email <e-mail> --password <password> [--name <name>] [--api-key]',
  '',
  '  Creates an account and its user (all permissions) in the stores of DATA_DIR, EVENTSTORE_URL,',
  '  MONGO_URL / MONGO_DB (as the services use them), and with --api-key an API key (all permissions).',
  '  Prints { "accountId", "userId", "apiKey"? } as JSON on its last line; the key is shown only there.',
].join('\n');

export interface CreateUserArgs {
  email: string;
  password: string;
  name?: string;
  apiKey: boolean;
}

export type CliCommand = { command: 'help' } | { command: 'users:create'; args: CreateUserArgs };

/** Bad arguments: the CLI prints the message and the usage on stderr and exits with 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MIN_PASSWORD_LENGTH = 8;
const MAX_NAME_LENGTH = 256;
const VALUE_OPTIONS = new Set(['--email', '--password', '--name']);
const FLAG_OPTIONS = new Set(['--api-key']);

/** Reads `users:create --email E --password P [--name N] [--api-key]` (`--option=value` works too). */
export function parseArgs(argv: readonly string[]): CliCommand {
  if (argv.length === 0) throw new UsageError('a command is required');
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') return { command: 'help' };
  if (command !== 'users:create') throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--help' || arg === '-h') return { command: 'help' };
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    if (FLAG_OPTIONS.has(name)) {
      if (name !== arg) throw new UsageError(`${name} takes no value`);
      if (flags.has(name)) throw new UsageError(`${name} is given twice`);
      flags.add(name);
    } else if (VALUE_OPTIONS.has(name)) {
      if (values.has(name)) throw new UsageError(`${name} is given twice`);
      let value: string | undefined;
      if (name !== arg) value = arg.slice(eq + 1);
      else {
        value = rest[i + 1];
        // A value may not look like an option: `--email --password x` is a forgotten value, not an address.
        if (value === undefined || VALUE_OPTIONS.has(value) || FLAG_OPTIONS.has(value)) throw new UsageError(`${name} needs a value`);
        i++;
      }
      values.set(name, value);
    } else {
      throw new UsageError(arg.startsWith('-') ? `unknown option ${arg}` : `unexpected argument ${JSON.stringify(arg)}`);
    }
  }
  const email = values.get('--email');
  const password = values.get('--password');
  const name = values.get('--name');
  if (email === undefined) throw new UsageError('--email is required');
  if (!EMAIL.test(email)) throw new UsageError(`--email must be an e-mail address, got ${JSON.stringify(email)}`);
  if (password === undefined) throw new UsageError('--password is required');
  if (password.length < MIN_PASSWORD_LENGTH) throw new UsageError(`--password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (name !== undefined && (name.trim().length === 0 || name.length > MAX_NAME_LENGTH))
    throw new UsageError(`--name must be 1..${MAX_NAME_LENGTH} characters`);
  const args: CreateUserArgs = { email, password, apiKey: flags.has('--api-key') };
  if (name !== undefined) args.name = name;
  return { command: 'users:create', args };
}

/** Creates the account, user and optional key in the stores the environment configures. */
export async function createUser(args: CreateUserArgs, env: NodeJS.ProcessEnv): Promise<CreatedUser> {
  const config = loadConfig(storeConfig, env);
  const stores = await openStores(config);
  try {
    // No projector: nothing in this process reads the read models, so nothing waits for them.
    const identity = new IdentityService(stores.eventStore, stores.readStore);
    return await identity.createUserWithAccount({ email: args.email, password: args.password, name: args.name, apiKey: args.apiKey || undefined });
  } finally {
    await stores.close();
  }
}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** Runs the CLI; resolves to the exit code: 0 done, 1 failed (configuration, e-mail taken, stores), 2 bad arguments. */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  let command: CliCommand;
  try {
    command = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`error: ${error.message}`);
    io.err(USAGE);
    return 2;
  }
  if (command.command === 'help') {
    io.out(USAGE);
    return 0;
  }
  try {
    const created = await createUser(command.args, env);
    io.out(JSON.stringify(created));
    return 0;
  } catch (error) {
    io.err(failureLine(error, command.args.email));
    return 1;
  }
}

function failureLine(error: unknown, email: string): string {
  if (error instanceof ConfigError) return error.message;
  if (error instanceof ServiceError && error.status === 409) return `error: a user with the e-mail ${email} exists already`;
  if (error instanceof ServiceError) return `error: ${error.message}`;
  return `error: ${error instanceof Error ? error.message : String(error)}`;
}
