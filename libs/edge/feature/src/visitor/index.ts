// The visitor context of a request: the geo and network databases, recent User-Agents, and the
// resolver that turns a request into the routing engine's visitor.
export * from './visitor-config';
export * from './mmdb-databases';
export * from './recent-values';
export * from './recent-user-agents';
export * from './visitor-resolver';
export * from './visitor-resolver.provider';
