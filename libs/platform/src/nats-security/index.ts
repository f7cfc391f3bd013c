export * from './nats-apps';
export * from './nats-permissions';
export * from './nats-users';
export * from './nats-server-config';
export * from './jetstream-permissions';
