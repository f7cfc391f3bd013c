export * from './match-answer';
