export * from './session-store';
export * from './session-config';
export * from './sqlite-session-store';
export * from './kv-session-store';
export * from './open-session-store';
