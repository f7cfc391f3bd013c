export * from './nats-server';
export * from './net';
export * from './temp-dir';
export * from './cleanup';
export * from './self-signed-certificate';
export * from './dns-server';
export * from './docker';
export * from './child-process';
