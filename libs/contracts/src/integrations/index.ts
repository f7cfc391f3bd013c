export * from './subjects';
export * from './integration.dto';
export * from './docs';
export * from './delivery-log';
