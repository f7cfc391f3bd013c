export * from './edge-sessions';
