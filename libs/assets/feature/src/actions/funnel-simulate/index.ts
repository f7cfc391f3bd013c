export { simulateFunnel } from './simulate-funnel';
export type { SimulateOptions } from './simulate-funnel';
export { loadFunnelAssets, toFunnelAssets } from './funnel-assets';
export type { AssetFinder, FoundRecords } from './funnel-assets';
export { assetNames, nameIds } from './asset-names';
export type { AssetNames } from './asset-names';
export { parseSimulationRequest } from './simulate-request';
export type { SimulationRequest } from './simulate-request';
export { simulatorMiddleware } from './middleware-answers';
