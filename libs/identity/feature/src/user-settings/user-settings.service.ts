import { Inject, Injectable } from '@nestjs/common';
import { CallerContext, ServiceError } from '@funnel/contracts';
import { EVENT_STORE, EventStore } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import {
  USER_SETTINGS_EVENT_SCHEMA_VERSION,
  UserSettings,
  UserSettingsCommand,
  UserSettingsEvent,
  UserSettingsState,
  UserSettingsStreams,
  asUserSettingsEvent,
  decideUserSettings,
  evolveUserSettings,
  initialUserSettingsState,
} from '@funnel/identity-domain';
import { UserSettingsProjector, userSettingsCollection } from './user-settings.projector';

/**
 * The caller's settings: read from the read model, written as events to `usersettings-<userId>`.
 * Writes answer once the projection has passed them, so a read right after a save sees it.
 */
@Injectable()
export class UserSettingsService {
  private readonly settings: ReturnType<typeof userSettingsCollection>;

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) readStore: ReadStore,
    private readonly projector: UserSettingsProjector,
  ) {
    this.settings = userSettingsCollection(readStore);
  }

  /** The saved object, or `{}` when nothing is saved. Only the caller's own account's document counts. */
  async get(context: CallerContext): Promise<UserSettings> {
    const { accountId, userId } = caller(context);
    const doc = await this.settings.findOne({ _id: userId, accountId });
    return doc?.json ? (JSON.parse(doc.json) as UserSettings) : {};
  }

  /** Replaces the whole object (400 when not an object, 413 when over the limit, nothing stored then). */
  async save(context: CallerContext, settings: unknown): Promise<void> {
    const { accountId, userId } = caller(context);
    // A save replaces whatever is there, so it decides on no state.
    await this.handle(context, { type: 'SaveUserSettings', accountId, userId, settings }, initialUserSettingsState());
  }

  /** Idempotent: deleting when nothing is saved records nothing and answers the same. */
  async delete(context: CallerContext): Promise<void> {
    const { accountId, userId } = caller(context);
    await this.handle(context, { type: 'DeleteUserSettings', accountId, userId }, await this.load(userId));
  }

  /**
   * The stream's state: the read-model document as a snapshot, plus the events the projection has
   * not applied yet (usually none), read from the log, so the decision never rests on a lagging model.
   */
  private async load(userId: string): Promise<UserSettingsState> {
    const doc = await this.settings.findOne({ _id: userId });
    let state: UserSettingsState = doc ? { saved: doc.json !== null } : initialUserSettingsState();
    const tail = await this.eventStore.readStream(UserSettingsStreams.settings(userId), { fromRevision: doc ? doc.revision + 1 : 0 });
    for (const e of tail) {
      const event = asUserSettingsEvent(e.type, e.data);
      if (event) state = evolveUserSettings(state, event);
    }
    return state;
  }

  /**
   * Appends without an expected revision: a save replaces everything and a delete's only decision
   * (is something saved?) stays right whichever way it races a save, so either order is a valid
   * outcome and neither needs to fail.
   */
  private async handle(context: CallerContext, command: UserSettingsCommand, state: UserSettingsState): Promise<void> {
    const events: UserSettingsEvent[] = decideUserSettings(command, state);
    if (!events.length) return;
    const metadata = {
      accountId: command.accountId,
      actorId: command.userId,
      correlationId: context.correlationId,
      occurredAt: new Date().toISOString(),
      schemaVersion: USER_SETTINGS_EVENT_SCHEMA_VERSION,
    };
    const { position } = await this.eventStore.append(
      UserSettingsStreams.settings(command.userId),
      events.map((e) => ({ type: e.type, data: e.data as Record<string, unknown>, metadata })),
      { expectedRevision: 'any' },
    );
    await this.projector.waitFor(position);
  }
}

function caller(context: CallerContext | undefined): { accountId: string; userId: string } {
  if (!context?.accountId || !context.userId) throw ServiceError.unauthorized();
  return { accountId: context.accountId, userId: context.userId };
}
