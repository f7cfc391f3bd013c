export * from './assets-feature.module';
export * from './assets.tokens';
export * from './asset-documents';
export * from './asset-projector';
export { AssetReply } from './assets.message.controller';
export { AssetCommands } from './asset-commands';
export { AssetQueries } from './asset-queries';
export { AssetSecretBox } from './secrets/asset-secret-box';
export type { KindAction, KindActionName, KindActionSet } from './asset-actions';
