import { AssetCommands } from './asset-commands';
import { AssetWrites } from './asset-writes';
import { RecordChecks } from './record-checks';
import { SaveCommand } from './save-command';
import { DuplicateCommand } from './duplicate-command';
import { ArchiveDeleteCommands } from './archive-delete-commands';
import { MoveCommands } from './move-commands';
import { ValidateCommand } from './validate-command';
import { KindActionCommands } from './kind-action-commands';

export { AssetCommands };

/** The write side's providers: the facade, one use case a class, and what they share. */
export const ASSET_COMMAND_PROVIDERS = [
  AssetCommands,
  AssetWrites,
  RecordChecks,
  SaveCommand,
  DuplicateCommand,
  ArchiveDeleteCommands,
  MoveCommands,
  ValidateCommand,
  KindActionCommands,
];
