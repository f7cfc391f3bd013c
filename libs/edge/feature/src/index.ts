// The tracking edge: visitor routes on tracking domains, the in-memory asset snapshot fed by asset
// events, visitor sessions, and the hits handed to reporting. Each part lives in its own folder.

// The asset snapshot: loads every routing asset and custom domain, follows the asset events, answers compiled funnels.
export * from './snapshot';
