import { Module } from '@nestjs/common';
import { ScriptsMessageController } from './scripts.message.controller';

@Module({ controllers: [ScriptsMessageController] })
export class ScriptsFeatureModule {}
