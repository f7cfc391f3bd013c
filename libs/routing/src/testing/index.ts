// Test helpers of the routing engine (not part of the library's entry): a realistic funnel with its assets.
export { REALISTIC_IDS, REALISTIC_SCRIPT, realisticFunnelAssets, realisticVisitor, rid } from './realistic-funnel';
