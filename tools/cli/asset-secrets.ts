/**
 * `asset-secrets:create <file>` and `asset-secrets:rotate <file>`: the key file that encrypts assets'
 * write-only secrets (ASSET_SECRETS_FILE), for the Secret an overlay mounts in every assets-service
 * replica. Rotation appends a key: it encrypts from then on, the older ones still decrypt.
 */
import { AssetSecretBox } from '@funnel/assets-feature';
import { CliIo } from './users';

export const ASSET_SECRETS_USAGE = [
  'usage: npm run -s cli -- asset-secrets:create <file>    write a new key file (refuses to overwrite)',
  '       npm run -s cli -- asset-secrets:rotate <file>    append a new key (it encrypts from then on)',
].join('\n');

/** Resolves to the exit code: 0 done, 1 failed, 2 bad arguments. Prints key ids, never keys. */
export async function runAssetSecretsCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, file, ...extra] = argv;
  if (!file || file.startsWith('-') || extra.length) {
    io.err(`error: ${command} takes one file path`);
    io.err(ASSET_SECRETS_USAGE);
    return 2;
  }
  try {
    if (command === 'asset-secrets:create') io.out(JSON.stringify({ file, ...AssetSecretBox.create(file) }));
    else io.out(JSON.stringify({ file, ...AssetSecretBox.rotate(file) }));
    return 0;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    io.err(code === 'EEXIST' ? `error: ${file} exists; rotate it instead` : `error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
