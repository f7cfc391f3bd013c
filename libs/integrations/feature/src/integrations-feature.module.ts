import { DynamicModule, Injectable, Module } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import type { ServiceClient } from '@funnel/platform';
import type { SecretCipher } from '@funnel/assets-domain';
import { AdPlatformRegistry } from '@funnel/integrations-domain';
import {
  INTEGRATION_ASSETS,
  INTEGRATION_CLOCK,
  INTEGRATION_PLATFORMS,
  INTEGRATION_SECRETS,
  INTEGRATION_SETTINGS,
  IntegrationSettings,
} from './integrations.tokens';
import { IntegrationsProjector } from './integrations/integrations.projector';
import { IntegrationsService } from './integrations/integrations.service';
import { IntegrationSyncMessageController, IntegrationsMessageController } from './integrations.message.controller';
import { INTEGRATION_JOBS, IntegrationJobsSettings, IntegrationSync } from './jobs/integration-sync.service';

export interface IntegrationsFeatureOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  /** The provider adapters (see integrationPlatformsFrom). */
  platforms: AdPlatformRegistry;
  /** Encrypts tokens and PKCE verifiers before they enter an event (the write-only-secrets box). */
  secrets: SecretCipher;
  /** The assets service (traffic sources named by links). */
  assets: ServiceClient;
  settings: IntegrationSettings;
  /** Milliseconds since the epoch; tests inject one to move past expiries. */
  clock?: () => number;
  /** The cost sync and conversion upload jobs (their queue, reporting's cost queue and hits); without it, no sync routes answer. */
  jobs?: IntegrationJobsSettings;
}

@Injectable()
export class IntegrationsHealth {
  constructor(private readonly projector: IntegrationsProjector) {}
  ready(): boolean {
    return this.projector.ready;
  }
}

/** Ad-platform integrations on `reporting.integrations.*` subjects (hosted by the reporting service). */
@Module({})
export class IntegrationsFeatureModule {
  static forRoot(options: IntegrationsFeatureOptions): DynamicModule {
    return {
      module: IntegrationsFeatureModule,
      controllers: [IntegrationsMessageController, ...(options.jobs ? [IntegrationSyncMessageController] : [])],
      providers: [
        { provide: EVENT_STORE, useValue: options.eventStore },
        { provide: READ_STORE, useValue: options.readStore },
        { provide: INTEGRATION_PLATFORMS, useValue: options.platforms },
        { provide: INTEGRATION_SECRETS, useValue: options.secrets },
        { provide: INTEGRATION_ASSETS, useValue: options.assets },
        { provide: INTEGRATION_SETTINGS, useValue: options.settings },
        { provide: INTEGRATION_CLOCK, useValue: options.clock ?? Date.now },
        IntegrationsProjector,
        IntegrationsService,
        IntegrationsHealth,
        ...(options.jobs ? [{ provide: INTEGRATION_JOBS, useValue: options.jobs }, IntegrationSync] : []),
      ],
      exports: [IntegrationsHealth, IntegrationsService],
    };
  }
}
