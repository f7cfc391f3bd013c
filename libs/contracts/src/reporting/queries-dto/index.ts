export * from './requests';
export * from './parse';
export * from './answer-schemas';
