import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { EVENT_STORE, EventStore, RecordedEvent } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { Projector, guardedReplace, writeGuarded } from '@funnel/projections';
import { IntegrationRecord, IntegrationStreams, asIntegrationEvent, evolveIntegration } from '@funnel/integrations-domain';

/**
 * One document per integration stream (`<accountId>.<idIntegration>`): the live record (its tokens
 * encrypted), or `record: null` once deleted (kept so the revision guard holds).
 */
export interface IntegrationDocument {
  _id: string;
  [key: string]: unknown;
  accountId: string;
  live: boolean;
  createdAt: string;
  record: IntegrationRecord | null;
  revision: number;
}

export const integrationsCollection = (readStore: ReadStore) => readStore.collection<IntegrationDocument>('integrations');

/** Projects `integration-` streams into the `integrations` read model, which lists and lookups read. */
@Injectable()
export class IntegrationsProjector extends Projector implements OnApplicationBootstrap {
  private readonly integrations: ReturnType<typeof integrationsCollection>;

  constructor(@Inject(EVENT_STORE) eventStore: EventStore, @Inject(READ_STORE) readStore: ReadStore) {
    super({ name: 'integrations', description: 'integrations projection', eventStore, readStore, streamNamePrefixes: IntegrationStreams.prefixes });
    this.integrations = integrationsCollection(readStore);
  }

  onApplicationBootstrap(): Promise<void> {
    return this.start();
  }

  protected override async createIndexes(): Promise<void> {
    await this.integrations.createIndex({ accountId: 1, live: 1, createdAt: 1 }, { name: 'account_live_created' });
  }

  /** Folds each stream's events of the batch over its stored document; one guarded write per document. */
  protected override async project(events: RecordedEvent[]): Promise<void> {
    const latest = new Map<string, IntegrationDocument>();
    for (const e of events) {
      const event = asIntegrationEvent(e.type, e.data);
      if (!event) continue;
      const _id = e.streamName.slice(IntegrationStreams.prefixes[0].length);
      const known = latest.get(_id) ?? (await this.integrations.findOne({ _id }));
      if (known && known.revision >= e.revision) continue;
      const record = evolveIntegration({ record: known?.record ?? undefined }, event).record ?? null;
      latest.set(_id, {
        _id,
        accountId: event.data.accountId,
        live: record !== null,
        createdAt: record?.createdAt ?? known?.createdAt ?? '',
        record,
        revision: e.revision,
      });
    }
    await writeGuarded(this.integrations, [...latest.values()].map(guardedReplace));
  }
}
