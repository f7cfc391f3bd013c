import { DynamicModule, Injectable, Logger, LoggerService, Module } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { Catalog, DEFAULT_CATALOG } from '@funnel/billing-domain';
import { BILLING_AUDIT_LOGGER, BILLING_CATALOG, BILLING_CLOCK, BILLING_SETTINGS, BillingSettings } from './billing.tokens';
import { EDGE_PROVIDER, EdgeProvider } from './edge/edge-provider';
import { BILLING_PROVIDER, BillingProvider, EMBEDDED_LEDGER } from './providers/billing-provider';
import { DomainChecker } from './checks/domain-checker';
import { DomainsProjector } from './domains/domains.projector';
import { DomainsService } from './domains/domains.service';
import { SubscriptionService } from './subscription/subscription.service';
import { IdempotentRequests } from './idempotency/idempotent-requests';
import { BillingMessageController } from './billing.message.controller';

export interface BillingFeatureOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  /** Where custom hostnames are provisioned (self-managed or Cloudflare). */
  edge: EdgeProvider;
  /** The routing check (HTTPS through the SSRF guard). */
  checker: DomainChecker;
  /** The embedded ledger by default; Stripe when configured. */
  billing?: BillingProvider;
  /** The add-on catalog; the documented default when absent. */
  catalog?: Catalog;
  settings: BillingSettings;
  /** Milliseconds since the epoch; tests inject one to move through billing periods. */
  clock?: () => number;
  /** Where the audit line of every domain check goes (Nest's logger by default). */
  auditLogger?: LoggerService;
}

@Injectable()
export class BillingHealth {
  constructor(private readonly projector: DomainsProjector) {}
  ready(): boolean {
    return this.projector.ready;
  }
}

/** The billing service: custom domains and billing add-ons on `billing.*` subjects. */
@Module({})
export class BillingFeatureModule {
  static forRoot(options: BillingFeatureOptions): DynamicModule {
    const clock = options.clock ?? Date.now;
    return {
      module: BillingFeatureModule,
      controllers: [BillingMessageController],
      providers: [
        { provide: EVENT_STORE, useValue: options.eventStore },
        { provide: READ_STORE, useValue: options.readStore },
        { provide: EDGE_PROVIDER, useValue: options.edge },
        { provide: DomainChecker, useValue: options.checker },
        { provide: BILLING_PROVIDER, useValue: options.billing ?? EMBEDDED_LEDGER },
        { provide: BILLING_CATALOG, useValue: options.catalog ?? DEFAULT_CATALOG },
        { provide: BILLING_SETTINGS, useValue: options.settings },
        { provide: BILLING_CLOCK, useValue: clock },
        { provide: BILLING_AUDIT_LOGGER, useValue: options.auditLogger ?? new Logger('BillingAudit') },
        { provide: IdempotentRequests, useFactory: (eventStore: EventStore) => new IdempotentRequests(eventStore, clock), inject: [EVENT_STORE] },
        DomainsProjector,
        DomainsService,
        SubscriptionService,
        BillingHealth,
      ],
      exports: [BillingHealth, DomainsService, SubscriptionService],
    };
  }
}
