// The visitor context of a request, as pure mappings: client address, geo record, time zone, network
// record, parsed User-Agent, Accept-Language, and the bounded reads of headers and query.
export * from './unknown';
export * from './client-address';
export * from './geo/continents';
export * from './geo/geo-record';
export * from './geo/time-zone';
export * from './network';
export * from './languages';
export * from './user-agent';
export * from './request-text';
export * from './visitor-attributes';
