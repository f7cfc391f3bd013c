// Test helpers of the routing engine (not part of the library's entry): a realistic funnel with its
// assets, and seeded walks.
export { REALISTIC_IDS, REALISTIC_SCRIPT, realisticFunnelAssets, realisticVisitor, rid } from './realistic-funnel';
export { type WalkOptions, walkStep } from './walks';
export { type TinyLink, type TinyNode, cid, landerGroup, nid, tinyFunnel } from './tiny-funnel';
