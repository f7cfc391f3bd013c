/** Nest injection token of the AssetRegistry. */
export const ASSET_REGISTRY = Symbol.for('funnel.AssetRegistry');
/** Nest injection token of the clock (a function returning now), so tests can pin time. */
export const CLOCK = Symbol.for('funnel.Clock');
export type Clock = () => Date;
/** Nest injection token of the SecretCipher that encrypts write-only secret fields. */
export const SECRET_CIPHER = Symbol.for('funnel.AssetSecretCipher');
/** Nest injection token of the kinds' own actions (see AssetActions). */
export const KIND_ACTIONS = Symbol.for('funnel.KindActions');
