/**
 * `identity-keys:create <file>` and `identity-keys:rotate <file>`: the identity service's key file
 * (token signing keys, TOTP-secret encryption keys), for the Secret an overlay mounts. Rotation puts
 * a new key of each kind in front; the old ones stay, so tokens already issued keep verifying.
 */
import { existsSync } from 'node:fs';
import { IdentityKeys } from '@funnel/identity-feature';
import { CliIo } from './users';

export const IDENTITY_KEYS_USAGE = [
  'usage: npm run -s cli -- identity-keys:create <file>    write a new key file (refuses to overwrite)',
  '       npm run -s cli -- identity-keys:rotate <file>    put a new signing and encryption key in front',
].join('\n');

/** Resolves to the exit code: 0 done, 1 failed, 2 bad arguments. */
export async function runIdentityKeysCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, file, ...extra] = argv;
  if (!file || file.startsWith('-') || extra.length) {
    io.err(`error: ${command} takes one file path`);
    io.err(IDENTITY_KEYS_USAGE);
    return 2;
  }
  try {
    if (command === 'identity-keys:create') {
      if (existsSync(file)) {
        io.err(`error: ${file} exists; rotate it instead`);
        return 1;
      }
      const keys = await IdentityKeys.load(file);
      io.out(JSON.stringify({ file, kid: keys.activeSigningKey.kid }));
    } else {
      io.out(JSON.stringify({ file, ...(await IdentityKeys.rotate(file)) }));
    }
    return 0;
  } catch (error) {
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
