export * from './route-doc';
export * from './document';
export { DtoSchemas } from './dto-schemas';
