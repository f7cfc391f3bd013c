import { Inject, Injectable, Optional } from '@nestjs/common';
import { API_KEY_PATTERN, ErrorCodes, PERMISSIONS, Principal, ServiceError, generateAssetId } from '@funnel/contracts';
import { EVENT_STORE, EventStore, GlobalPosition, NewEvent, WrongExpectedRevisionError, comparePositions } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { IdentityStreams, apiKeyDigest, apiKeyPrefix, emailDigest, generateApiKey, hashPassword, newApiKeyId, normalizeEmail } from '@funnel/identity-domain';
import { IdentityProjector } from './identity-projector';
import { ApiKeyAuthentication } from './api-keys/api-key-authentication';
import { reserveApiKeyDigest } from './api-keys/api-key-stream';
import { usersCollection } from './identity-read-model';

export interface NewUser {
  email: string;
  password: string;
  name?: string;
  /** A key to register for the user (bootstrap); `true` generates one. */
  apiKey?: string | true;
}

export interface CreatedUser {
  accountId: string;
  userId: string;
  /** Shown once, here; stored only as a digest. */
  apiKey?: string;
}

/** Accounts, users and API keys (the minimal identity the gateway's key authentication needs). */
@Injectable()
export class IdentityService {
  private readonly users = usersCollection(this.readStore);
  private readonly apiKeys = new ApiKeyAuthentication(this.eventStore, this.readStore);

  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    /** Absent outside a running service (the CLI): writes then answer without waiting for the read model. */
    @Optional() private readonly projector?: IdentityProjector,
  ) {}

  /** Who the key belongs to (with its keyId); 401 for unknown, disabled and deleted keys. */
  authenticateApiKey(key: unknown): Promise<Principal> {
    return this.apiKeys.authenticate(key);
  }

  async userExists(email: string): Promise<boolean> {
    return (await this.users.countDocuments({ email: normalizeEmail(email) })) > 0;
  }

  /**
   * Opens an account with its first user (holding every permission) and optionally an API key.
   * The e-mail is claimed first in its own stream (unique by construction); the remaining streams
   * are created with "no stream" expectations, so repeating the call after a crash completes it.
   * With `completeExisting` (bootstrap), a user that exists already is completed instead of refused.
   */
  async createUserWithAccount(request: NewUser, options: { completeExisting?: boolean } = {}): Promise<CreatedUser> {
    const email = normalizeEmail(request.email);
    if (typeof request.apiKey === 'string' && !API_KEY_PATTERN.test(request.apiKey)) {
      throw ServiceError.badRequest(ErrorCodes.VALIDATION, 'an API key is 16..128 printable characters');
    }
    const claimStream = IdentityStreams.email(emailDigest(email));
    const claim = await this.eventStore.readStream(claimStream);
    const claimed = claim[0]?.data as { userId: string; accountId: string } | undefined;
    const userId = claimed?.userId ?? generateAssetId();
    const accountId = claimed?.accountId ?? generateAssetId();
    // A claimed address whose user exists is taken, unless the caller completes that same user (bootstrap).
    if (claimed && !options.completeExisting && (await this.eventStore.readStream(IdentityStreams.user(userId))).length > 0) {
      throw ServiceError.conflict('IDENTITY.EMAIL_TAKEN', 'a user with this e-mail exists');
    }
    let last: GlobalPosition | undefined;
    const track = (p?: GlobalPosition) => {
      if (p && (!last || comparePositions(p, last) > 0)) last = p;
    };
    if (!claimed) track(await this.appendNew(claimStream, { type: 'EmailReserved', data: { userId, accountId } }, true));
    const permissions = [...PERMISSIONS];
    track(await this.appendNew(IdentityStreams.account(accountId), { type: 'AccountOpened', data: { accountId, name: request.name ?? email } }));
    const passwordHash = await hashPassword(request.password);
    track(
      await this.appendNew(IdentityStreams.user(userId), {
        type: 'UserRegistered',
        data: { userId, accountId, email, name: request.name ?? email, passwordHash: { ...passwordHash }, permissions },
      }),
    );
    let apiKey: string | undefined;
    if (request.apiKey) {
      apiKey = request.apiKey === true ? generateApiKey() : request.apiKey;
      const digest = apiKeyDigest(apiKey);
      // A random id, claimed for the digest: repeating the call (bootstrap after a crash) finds the same id.
      const reserved = await reserveApiKeyDigest(this.eventStore, digest, newApiKeyId(), { schemaVersion: 1, occurredAt: new Date().toISOString() });
      track(reserved.position);
      const keyId = reserved.keyId;
      track(
        await this.appendNew(IdentityStreams.apiKey(keyId), {
          type: 'ApiKeyIssued',
          data: { keyId, accountId, userId, name: 'default', digest, prefix: apiKeyPrefix(apiKey), permissions },
        }),
      );
    }
    if (last && this.projector) await this.projector.waitFor(last);
    return apiKey ? { accountId, userId, apiKey } : { accountId, userId };
  }

  /** Appends the first event of a stream; when it exists already the step was done before (or, for a claim, the e-mail is taken). */
  private async appendNew(stream: string, event: NewEvent, isClaim = false): Promise<GlobalPosition | undefined> {
    try {
      return (
        await this.eventStore.append(stream, [{ ...event, metadata: { schemaVersion: 1, occurredAt: new Date().toISOString() } }], {
          expectedRevision: 'no_stream',
        })
      ).position;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (isClaim) throw ServiceError.conflict('IDENTITY.EMAIL_TAKEN', 'a user with this e-mail exists');
      return undefined;
    }
  }
}
