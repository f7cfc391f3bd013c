export * from './session-keys';
export * from './session-bounds';
export * from './session-codec';
