import { DynamicModule, Inject, Injectable, Logger, Module, OnApplicationBootstrap } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { EVENT_PUBLISHER, EventPublisher, NO_EVENT_PUBLISHER } from '@funnel/platform';
import { IdentityProjector } from './identity-projector';
import { IdentityService } from './identity.service';
import { IdentityMessageController } from './identity.message.controller';
import { ApiKeysMessageController, ApiKeysService } from './api-keys';
import { UserSettingsMessageController, UserSettingsProjector, UserSettingsService } from './user-settings';
import { AuthHealth, AuthModule, AuthOptions } from './auth';

export interface BootstrapAdmin {
  email: string;
  password: string;
  apiKey: string;
}

export interface IdentityFeatureOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  /** Creates this user, its account and key on start when the user does not exist yet. */
  bootstrapAdmin?: BootstrapAdmin;
  /** Where identity publishes events for other processes (API key revocations for the gateways' caches); nowhere by default. */
  events?: EventPublisher;
  /** Login, tokens and MFA (without a keys file, keys live in memory only: for tests). */
  auth?: AuthOptions;
}

const BOOTSTRAP_ADMIN = Symbol.for('funnel.BootstrapAdmin');

@Injectable()
class IdentityStartup implements OnApplicationBootstrap {
  private readonly logger = new Logger('IdentityBootstrap');

  constructor(
    private readonly projector: IdentityProjector,
    private readonly identity: IdentityService,
    @Inject(BOOTSTRAP_ADMIN) private readonly admin: BootstrapAdmin | null,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.projector.start();
    if (!this.admin) return;
    // Idempotent: whatever of the admin's account, user and key a previous start left undone is completed.
    const existed = await this.identity.userExists(this.admin.email);
    const created = await this.identity.createUserWithAccount(
      { email: this.admin.email, password: this.admin.password, apiKey: this.admin.apiKey },
      { completeExisting: true },
    );
    if (!existed) this.logger.log(`bootstrap admin created: account ${created.accountId}, user ${created.userId}`);
  }
}

@Injectable()
export class IdentityHealth {
  constructor(
    private readonly projector: IdentityProjector,
    private readonly userSettings: UserSettingsProjector,
    private readonly auth: AuthHealth,
  ) {}
  ready(): boolean {
    return this.projector.ready && this.userSettings.ready && this.auth.ready();
  }
}

@Module({})
export class IdentityFeatureModule {
  static forRoot(options: IdentityFeatureOptions): DynamicModule {
    return {
      module: IdentityFeatureModule,
      imports: [AuthModule.forRoot(options, options.auth ?? {})],
      controllers: [IdentityMessageController, UserSettingsMessageController, ApiKeysMessageController],
      providers: [
        { provide: EVENT_STORE, useValue: options.eventStore },
        { provide: READ_STORE, useValue: options.readStore },
        { provide: BOOTSTRAP_ADMIN, useValue: options.bootstrapAdmin ?? null },
        { provide: EVENT_PUBLISHER, useValue: options.events ?? NO_EVENT_PUBLISHER },
        ApiKeysService,
        IdentityProjector,
        IdentityService,
        IdentityStartup,
        IdentityHealth,
        UserSettingsProjector,
        UserSettingsService,
      ],
      exports: [IdentityService, IdentityHealth],
    };
  }
}
