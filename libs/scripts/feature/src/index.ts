export * from './scripts-feature.module';
export * from './stored-logic-scripts';
