import { CliIo, USAGE, UsageError, parseArgs, runCli } from './users';

const base = ['users:create', '--email', 'ops@example.com', '--password', 'a long password'];

function capture(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (line) => void stdout.push(line), err: (line) => void stderr.push(line) };
}

describe('cli arguments', () => {
  it('reads users:create with the required options', () => {
    expect(parseArgs(base)).toEqual({ command: 'users:create', args: { email: 'ops@example.com', password: 'a long password', apiKey: false } });
  });

  it('reads --name, --api-key and the --option=value form, in any order', () => {
    expect(parseArgs(['users:create', '--api-key', '--name', 'Ops Team', '--password=a long password', '--email=ops@example.com'])).toEqual({
      command: 'users:create',
      args: { email: 'ops@example.com', password: 'a long password', name: 'Ops Team', apiKey: true },
    });
  });

  it('keeps a password that contains "=" or starts with a dash', () => {
    expect(parseArgs(['users:create', '--email', 'a@b.co', '--password', '-secret=1234']).command).toBe('users:create');
    expect(parseArgs(['users:create', '--email', 'a@b.co', '--password=x=y=zzzzzz'])).toMatchObject({ args: { password: 'x=y=zzzzzz' } });
  });

  it.each([[['--help']], [['-h']], [['help']], [['users:create', '--help']]])('answers help for %j', (argv) => {
    expect(parseArgs(argv)).toEqual({ command: 'help' });
  });

  it.each([
    ['no command', [], /command is required/],
    ['an unknown command', ['users:delete'], /unknown command/],
    ['a missing e-mail', ['users:create', '--password', 'a long password'], /--email is required/],
    ['a missing password', ['users:create', '--email', 'a@b.co'], /--password is required/],
    ['an option without its value', ['users:create', '--email', '--password', 'a long password'], /--email needs a value/],
    ['a trailing option without its value', [...base, '--name'], /--name needs a value/],
    ['a malformed e-mail', ['users:create', '--email', 'not-an-address', '--password', 'a long password'], /e-mail address/],
    ['a short password', ['users:create', '--email', 'a@b.co', '--password', 'short'], /at least 8/],
    ['an empty name', [...base, '--name', ' '], /--name/],
    ['an unknown option', [...base, '--admin'], /unknown option --admin/],
    ['a stray argument', [...base, 'extra'], /unexpected argument/],
    ['a repeated option', [...base, '--email', 'b@c.de'], /given twice/],
    ['a value on a flag', [...base, '--api-key=yes'], /takes no value/],
  ])('refuses %s', (_what, argv, message) => {
    expect(() => parseArgs(argv as string[])).toThrow(UsageError);
    expect(() => parseArgs(argv as string[])).toThrow(message);
  });

  it('bad arguments: the problem and the usage on stderr, exit code 2, nothing on stdout', async () => {
    const io = capture();
    expect(await runCli(['users:create', '--email', 'a@b.co'], {}, io)).toBe(2);
    expect(io.stdout).toEqual([]);
    expect(io.stderr).toEqual(['error: --password is required', USAGE]);
  });

  it('help: the usage on stdout, exit code 0', async () => {
    const io = capture();
    expect(await runCli(['--help'], {}, io)).toBe(0);
    expect(io.stdout).toEqual([USAGE]);
  });

  it('a bad configuration value: its one line, exit code 1', async () => {
    const io = capture();
    expect(await runCli(base, { DATA_DIR: '/tmp/unused', EVENTSTORE_URL: 'http://not-esdb' }, io)).toBe(1);
    expect(io.stderr).toHaveLength(1);
    expect(io.stderr[0]).toMatch(/^Invalid configuration: EVENTSTORE_URL /);
  });
});
