import { DynamicModule, Inject, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ASSET_KINDS, AssetKindDescriptor } from '@funnel/contracts';
import { EVENT_STORE, EventStore } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { AssetRegistry, SecretCipher } from '@funnel/assets-domain';
import { ASSET_REGISTRY, CLOCK, Clock, KIND_ACTIONS, SECRET_CIPHER } from './assets.tokens';
import { AssetActions, KindActionSet } from './asset-actions';
import { AssetSecretBox } from './secrets/asset-secret-box';
import { UniqueClaims } from './unique-claims';
import { AssetRepository } from './asset-repository';
import { AssetProjector } from './asset-projector';
import { AssetQueries } from './asset-queries';
import { AssetHistory } from './asset-history';
import { ASSET_COMMAND_PROVIDERS } from './asset-commands';
import { ChildrenCascade } from './children-cascade';
import { DuplicateCompletion } from './duplicate-completion';
import { RunAssetCommandHandler, RunAssetQueryHandler } from './asset-operations';
import { createAssetsMessageController } from './assets.message.controller';
import { EdgeSnapshotMessageController, EdgeSnapshotQuery, MiddlewareSecretsMessageController, MiddlewareSecretsQuery } from './edge-snapshot';
import { WEBHOOK_DISPATCH, WebhookDispatch, WebhookDispatchMessageController } from './webhook-dispatch';
import type { OutboundHttp } from '@funnel/platform';

export interface AssetsFeatureOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  kinds?: readonly AssetKindDescriptor[];
  clock?: Clock;
  /** Encrypts write-only secrets: the key file's box in the apps; a fresh in-memory key when absent (tests). */
  secrets?: SecretCipher;
  /** Kind-owned actions by kind name (see AssetActions); the registered defaults when absent. */
  actions?: Readonly<Record<string, KindActionSet>>;
  /** The SSRF-guarded client webhook deliveries go through (`assets.internal.webhookdeliver`); without it they answer 503. */
  outbound?: OutboundHttp;
}

/** Rebuilds or catches up the read model before the service answers, then keeps it live. */
@Injectable()
class AssetsStartup implements OnApplicationBootstrap {
  constructor(
    private readonly projector: AssetProjector,
    private readonly cascade: ChildrenCascade,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.projector.start();
    await this.cascade.start();
  }
}

/** Readiness of the asset service: the read model is caught up and projecting. */
@Injectable()
export class AssetsHealth {
  constructor(@Inject(AssetProjector) private readonly projector: AssetProjector) {}
  ready(): boolean {
    return this.projector.ready;
  }
}

@Module({})
export class AssetsFeatureModule {
  static forRoot(options: AssetsFeatureOptions): DynamicModule {
    const kinds = options.kinds ?? ASSET_KINDS;
    return {
      module: AssetsFeatureModule,
      imports: [CqrsModule.forRoot()],
      controllers: [createAssetsMessageController(kinds), EdgeSnapshotMessageController, WebhookDispatchMessageController, MiddlewareSecretsMessageController],
      providers: [
        { provide: EVENT_STORE, useValue: options.eventStore },
        { provide: READ_STORE, useValue: options.readStore },
        { provide: ASSET_REGISTRY, useValue: new AssetRegistry(kinds) },
        { provide: CLOCK, useValue: options.clock ?? (() => new Date()) },
        { provide: SECRET_CIPHER, useValue: options.secrets ?? AssetSecretBox.ephemeral() },
        { provide: KIND_ACTIONS, useValue: options.actions ?? {} },
        UniqueClaims,
        AssetActions,
        AssetRepository,
        AssetProjector,
        AssetQueries,
        AssetHistory,
        ...ASSET_COMMAND_PROVIDERS,
        ChildrenCascade,
        DuplicateCompletion,
        RunAssetCommandHandler,
        RunAssetQueryHandler,
        AssetsStartup,
        AssetsHealth,
        EdgeSnapshotQuery,
        {
          provide: WEBHOOK_DISPATCH,
          useFactory: (readStore: ReadStore, secrets: SecretCipher) => new WebhookDispatch(readStore, secrets, options.outbound),
          inject: [READ_STORE, SECRET_CIPHER],
        },
        MiddlewareSecretsQuery,
      ],
      exports: [AssetsHealth, AssetProjector],
    };
  }
}
