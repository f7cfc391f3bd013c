import { DynamicModule, Inject, Injectable, LoggerService, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { EventStore } from '@funnel/eventstore';
import { ReadStore } from '@funnel/readstore';
import { AUTH_SERVICE, AuthMessageController } from './auth.message.controller';
import { AuthService } from './auth.service';
import { IdentityKeys } from './identity-keys';
import { LoginThrottle } from './login-throttle.store';
import { RefreshTokens } from './refresh-tokens';
import { TokenIssuer } from './token-issuer';

export interface AuthOptions {
  /** The file of signing and encryption keys (created with fresh keys when absent); without one, keys live in memory only (tests). */
  keysFile?: string;
  /** Access-token lifetime; the spec's 72 hours unless an operator or a test shortens it. */
  accessTokenTtlSeconds?: number;
  /** Refresh-token lifetime; 30 days by default. */
  refreshTokenTtlSeconds?: number;
  /** Milliseconds since the epoch; tests inject one to move time. */
  clock?: () => number;
  /** Holds back failed logins; tests may replace it. */
  sleep?: (ms: number) => Promise<void>;
  /** Where failed logins and lockouts are logged at warn; Nest's logger when absent (tests pass their own). */
  logger?: LoggerService;
}

export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 72 * 3600;
export const DEFAULT_REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

const REFRESH_TOKENS = Symbol.for('funnel.identity.RefreshTokens');

@Injectable()
export class AuthHealth implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(REFRESH_TOKENS) private readonly refreshTokens: RefreshTokens) {}

  onApplicationBootstrap(): Promise<void> {
    return this.refreshTokens.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.refreshTokens.stop();
  }

  ready(): boolean {
    return this.refreshTokens.ready;
  }
}

/** Login, MFA, tokens and sessions; part of the identity feature. */
@Module({})
export class AuthModule {
  static forRoot(stores: { eventStore: EventStore; readStore: ReadStore }, options: AuthOptions): DynamicModule {
    const clock = options.clock ?? Date.now;
    return {
      module: AuthModule,
      controllers: [AuthMessageController],
      providers: [
        { provide: IdentityKeys, useFactory: () => (options.keysFile ? IdentityKeys.load(options.keysFile) : IdentityKeys.inMemory()) },
        {
          provide: REFRESH_TOKENS,
          useFactory: () =>
            new RefreshTokens(
              stores.eventStore,
              stores.readStore,
              { refreshTokenTtlSeconds: options.refreshTokenTtlSeconds ?? DEFAULT_REFRESH_TOKEN_TTL_SECONDS },
              clock,
            ),
        },
        {
          provide: AUTH_SERVICE,
          inject: [IdentityKeys, REFRESH_TOKENS],
          useFactory: (keys: IdentityKeys, refreshTokens: RefreshTokens) =>
            new AuthService({
              eventStore: stores.eventStore,
              keys,
              tokens: new TokenIssuer(keys, { accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_SECONDS }, clock),
              refreshTokens,
              throttle: new LoginThrottle(stores.readStore, clock),
              clock,
              sleep: options.sleep,
              logger: options.logger,
            }),
        },
        AuthHealth,
      ],
      exports: [AUTH_SERVICE, AuthHealth],
    };
  }
}
