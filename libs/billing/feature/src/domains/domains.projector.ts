import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { EVENT_STORE, EventStore, RecordedEvent } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { Projector, guardedReplace, writeGuarded } from '@funnel/projections';
import { CustomDomainState, DomainRecord, DomainStreams, asCustomDomainEvent, evolveCustomDomain } from '@funnel/billing-domain';

/**
 * One document per domain stream (`<accountId>.<domain>`): the live record, or `record: null` once
 * deleted (kept so the revision guard holds when the domain is registered again).
 */
export interface DomainDocument {
  _id: string;
  [key: string]: unknown;
  accountId: string;
  domain: string;
  live: boolean;
  createdAt: string;
  record: DomainRecord | null;
  revision: number;
}

export const domainsCollection = (readStore: ReadStore) => readStore.collection<DomainDocument>('billing_domains');

/** Projects `billingdomain-` streams into billing_domains, which lists and lookups read. */
@Injectable()
export class DomainsProjector extends Projector implements OnApplicationBootstrap {
  private readonly domains: ReturnType<typeof domainsCollection>;

  constructor(@Inject(EVENT_STORE) eventStore: EventStore, @Inject(READ_STORE) readStore: ReadStore) {
    super({ name: 'billing-domains', description: 'domains projection', eventStore, readStore, streamNamePrefixes: DomainStreams.prefixes });
    this.domains = domainsCollection(readStore);
  }

  onApplicationBootstrap(): Promise<void> {
    return this.start();
  }

  protected override async createIndexes(): Promise<void> {
    await this.domains.createIndex({ accountId: 1, live: 1, createdAt: 1 }, { name: 'account_live_created' });
  }

  /** Folds each stream's events of the batch over its stored document; one guarded write per document. */
  protected override async project(events: RecordedEvent[]): Promise<void> {
    const latest = new Map<string, DomainDocument>();
    for (const e of events) {
      const event = asCustomDomainEvent(e.type, e.data);
      if (!event) continue;
      const _id = e.streamName.slice(DomainStreams.prefixes[0].length);
      const known = latest.get(_id) ?? (await this.domains.findOne({ _id }));
      if (known && known.revision >= e.revision) continue;
      const state: CustomDomainState = evolveCustomDomain({ record: known?.record ?? undefined }, event);
      const record = state.record ?? null;
      latest.set(_id, {
        _id,
        accountId: event.data.accountId,
        domain: event.data.domain,
        live: record !== null,
        createdAt: record?.createdAt ?? known?.createdAt ?? '',
        record,
        revision: e.revision,
      });
    }
    await writeGuarded(this.domains, [...latest.values()].map(guardedReplace));
  }
}
