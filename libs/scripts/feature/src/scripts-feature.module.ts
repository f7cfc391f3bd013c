import { DynamicModule, Module } from '@nestjs/common';
import type { ServiceClient } from '@funnel/platform';
import { ScriptsMessageController } from './scripts.message.controller';
import { StoredLogicScripts } from './stored-logic-scripts';

export interface ScriptsFeatureOptions {
  /** Reaches assets-service, to evaluate a saved logic script (`{ idLogicScript }`). */
  assets: ServiceClient;
}

@Module({})
export class ScriptsFeatureModule {
  static forRoot(options: ScriptsFeatureOptions): DynamicModule {
    return {
      module: ScriptsFeatureModule,
      controllers: [ScriptsMessageController],
      providers: [{ provide: StoredLogicScripts, useValue: new StoredLogicScripts(options.assets) }],
    };
  }
}
