/** Nest injection token of the AssetRegistry. */
export const ASSET_REGISTRY = Symbol.for('funnel.AssetRegistry');
/** Nest injection token of the clock (a function returning now), so tests can pin time. */
export const CLOCK = Symbol.for('funnel.Clock');
export type Clock = () => Date;
