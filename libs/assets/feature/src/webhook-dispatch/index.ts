export * from './webhook-dispatch';
export * from './webhook-dispatch.message.controller';
