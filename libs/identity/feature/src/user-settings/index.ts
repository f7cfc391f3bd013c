export * from './user-settings.projector';
export * from './user-settings.service';
export * from './user-settings.message.controller';
