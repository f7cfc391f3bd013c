export * from './asset-kind';
export * from './requests';
export * from './id-validators';
export * from './visitor-tag';
export * from './category';
export * from './kinds';
