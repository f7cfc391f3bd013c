import { CLI_COMMANDS, commandList, runCommand } from './commands';
import type { CliIo } from './users';

function capture(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (line) => void stdout.push(line), err: (line) => void stderr.push(line) };
}

const run = (argv: string[], io: CliIo) => runCommand(argv, {}, io, new AbortController().signal);

describe('cli commands', () => {
  it('--help lists every command on a line of its own with what it does, and exits 0', async () => {
    const io = capture();
    expect(await run(['--help'], io)).toBe(0);
    const lines = io.stdout.join('\n').split('\n');
    for (const { name, summary } of CLI_COMMANDS) {
      expect(lines.filter((line) => line.trim().startsWith(`${name} `))).toEqual([expect.stringContaining(summary)]);
    }
    expect(CLI_COMMANDS.map(({ name }) => name)).toEqual([
      'users:create',
      'identity-keys:create',
      'identity-keys:rotate',
      'asset-secrets:create',
      'asset-secrets:rotate',
      'nats-credentials:create',
      'nats-credentials:rotate',
      'nats-credentials:retire',
      'events:tail',
      'hits:import',
    ]);
    expect(io.stderr).toEqual([]);
  });

  it.each(CLI_COMMANDS.map(({ name }) => name))('%s --help prints its usage on stdout and exits 0, doing nothing else', async (name) => {
    for (const flag of ['--help', '-h']) {
      const io = capture();
      expect(await run([name, flag], io)).toBe(0);
      expect(io.stdout).toEqual([CLI_COMMANDS.find((command) => command.name === name)!.usage]);
      expect(io.stdout[0]).toMatch(/^usage: /);
      expect(io.stdout[0]).toMatch(new RegExp(`npm run -s cli -- ${name} `));
      expect(io.stderr).toEqual([]);
    }
  });

  it('refuses a missing or unknown command with the list on stderr (exit 2)', async () => {
    for (const argv of [[], ['users:delete']]) {
      const io = capture();
      expect(await run(argv, io)).toBe(2);
      expect(io.stdout).toEqual([]);
      expect(io.stderr).toEqual([argv.length ? 'error: unknown command "users:delete"' : 'error: a command is required', commandList()]);
    }
  });
});
