import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { EVENT_STORE, EventStore, RecordedEvent } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { Projector, guardedReplace, writeGuarded } from '@funnel/projections';
import { UserSettingsStreams, asUserSettingsEvent } from '@funnel/identity-domain';

/**
 * One document per user. The settings are kept as their JSON text rather than as fields: user
 * keys may be anything JSON allows (`$`-prefixed, dotted), which a MongoDB document cannot always
 * hold, and the text is exactly what was measured against the size limit. `json: null` means
 * nothing is saved (deleted), kept as a document so the revision guard still holds.
 */
export interface UserSettingsDocument {
  /** The user id. */
  _id: string;
  [key: string]: unknown;
  accountId: string;
  json: string | null;
  revision: number;
}

export const userSettingsCollection = (readStore: ReadStore) => readStore.collection<UserSettingsDocument>('identity_user_settings');

/** Projects `usersettings-<userId>` streams into identity_user_settings. Starts on application bootstrap. */
@Injectable()
export class UserSettingsProjector extends Projector implements OnApplicationBootstrap {
  private readonly settings: ReturnType<typeof userSettingsCollection>;

  constructor(@Inject(EVENT_STORE) eventStore: EventStore, @Inject(READ_STORE) readStore: ReadStore) {
    super({
      name: 'identity-user-settings',
      description: 'user settings projection',
      eventStore,
      readStore,
      streamNamePrefixes: UserSettingsStreams.prefixes,
    });
    this.settings = userSettingsCollection(readStore);
  }

  onApplicationBootstrap(): Promise<void> {
    return this.start();
  }

  protected override async project(events: RecordedEvent[]): Promise<void> {
    // The last event per user wins: one guarded write per document, since unordered bulk writes
    // give no order between two operations on the same document.
    const latest = new Map<string, UserSettingsDocument>();
    for (const e of events) {
      const event = asUserSettingsEvent(e.type, e.data);
      if (!event) continue;
      const { accountId, userId } = event.data;
      const json = event.type === 'UserSettingsSaved' ? JSON.stringify(event.data.settings) : null;
      latest.set(userId, { _id: userId, accountId, json, revision: e.revision });
    }
    await writeGuarded(this.settings, [...latest.values()].map(guardedReplace));
  }
}
