// Funnels: the pure rules of a funnel's graph (no I/O). The funnel kind's rules use them in the
// generic pipeline: checkFunnelGraph as its check, funnelReferences as its references, funnelWarnings
// for POST /funnel/validate/, duplicateFunnel for funnel (and funnel group) duplicates.
export * from './funnel-types';
export { checkFunnelGraph } from './funnel-graph';
export {
  FUNNEL_SCOPE_FIELD,
  NODE_REFERENCE_FIELDS,
  type NodeReferenceField,
  funnelReferences,
  nodeAssetIds,
  type NodeAssetId,
  nodeTypeOf,
} from './funnel-references';
export { type FunnelWarningContext, funnelWarnings } from './funnel-warnings';
export { duplicateFunnel } from './funnel-duplicate';
