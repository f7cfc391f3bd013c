import { IsIn, IsOptional, IsString, Length, Matches, ValidateIf } from 'class-validator';
import { IsDateTime } from '../reporting/updates';
import { SYNC_KINDS, type IntegrationStatus, type SyncJobStatus, type SyncKind } from './subjects';

/** An integration as answered: never its tokens. */
export interface IntegrationView {
  idIntegration: string;
  provider: string;
  integrationName: string;
  status: IntegrationStatus;
  lastError: string | null;
  /** When the access token expires (ISO 8601); null when the provider's tokens do not expire. */
  expiresAt: string | null;
  scopes: string[];
  createdAt: string;
}

export interface AdAccountView {
  id: string;
  name: string;
  currency: string;
  timezone: string;
  /** The traffic source whose hits it pays for, or null. */
  idTrafficSource: string | null;
}

export interface ConversionGoalView {
  id: string;
  name: string;
  /** What the provider calls it (`dataset`, `conversion_action`, `pixel`, `offline_goal`). */
  type: string;
  /** The traffic source whose conversions go to it, with the link's settings; null when not linked. */
  link: GoalLinkView | null;
}

export interface GoalLinkView {
  idTrafficSource: string;
  /** The provider's event name (Meta datasets, TikTok pixels need one). */
  eventName: string | null;
  /** The hit's tracking field holding the click id (`external` by default). */
  clickIdField: string;
}

export interface AuthorizationStartView {
  authorizationUrl: string;
  state: string;
  /** `S256` when the provider takes PKCE, else null. */
  codeChallengeMethod: 'S256' | null;
  expiresAt: string;
}

/** A provider's name: lower-case letters and digits. */
const PROVIDER = /^[a-z][a-z0-9]{0,31}$/;

export class StartAuthorizationDto {
  @IsString()
  @Matches(PROVIDER, { message: 'provider must be a provider name from GET /v1/integrations/capabilities' })
  provider!: string;

  @IsOptional()
  @IsString()
  @Length(1, 256)
  integrationName?: string;
}

export class CompleteAuthorizationDto {
  @IsString()
  @Length(1, 256)
  state!: string;

  /** The `code` the provider's redirect carried; absent when it carried an `error`. */
  @ValidateIf((o: CompleteAuthorizationDto) => o.error === undefined)
  @IsString()
  @Length(1, 4096)
  code?: string;

  /** The provider's `error` (the user declined): the state is used up and nothing is connected. */
  @IsOptional()
  @IsString()
  @Length(1, 256)
  error?: string;

  @IsOptional()
  @IsString()
  @Length(0, 1024)
  errorDescription?: string;
}

export class RenameIntegrationDto {
  @IsString()
  @Length(1, 256)
  integrationName!: string;
}

const ID = /^[0-9A-Za-z]{12}$/;

export class LinkAdAccountDto {
  /** The traffic source to link; null unlinks. */
  @ValidateIf((o: LinkAdAccountDto) => o.idTrafficSource !== null)
  @IsString()
  @Matches(ID, { message: 'idTrafficSource must be an asset id (12 characters of 0-9A-Za-z) or null' })
  idTrafficSource!: string | null;
}

/** Tracking fields a click id can be read from. */
export const CLICK_ID_FIELDS = ['external', 'gclid', 'fbclid', 'ttclid', 'msclkid'] as const;

export class LinkGoalDto {
  /** The traffic source whose conversions go to the goal; null unlinks. */
  @ValidateIf((o: LinkGoalDto) => o.idTrafficSource !== null)
  @IsString()
  @Matches(ID, { message: 'idTrafficSource must be an asset id (12 characters of 0-9A-Za-z) or null' })
  idTrafficSource!: string | null;

  @IsOptional()
  @IsString()
  @Length(1, 100)
  eventName?: string;

  @IsOptional()
  @IsIn(CLICK_ID_FIELDS)
  clickIdField?: string;
}

/** POST /integrations/:idIntegration/sync: pull costs or send conversions for a window now. */
export class SyncIntegrationDto {
  @IsIn(SYNC_KINDS)
  kind!: SyncKind;

  @IsString() @IsDateTime() timeStart!: string;
  @IsString() @IsDateTime() timeEnd!: string;
}

/** One ad account's part of a sync job. */
export interface SyncJobPartView {
  adAccountId: string;
  /** Cost: the reporting cost jobs it queued (one per day of the ad account's time zone). */
  costJobIds: string[];
  /** Cost: campaign-day rows pulled; conversions: conversions sent. */
  rows: number;
  /** Conversions refused by the provider. */
  rejected: number;
  error: string | null;
}

/** A sync job as GET /integrations/sync/:jobId answers it. */
export interface SyncJobView {
  jobId: string;
  idIntegration: string;
  kind: SyncKind;
  /** `schedule` (every 3 hours), `request` (POST .../sync) or `conversions` (applied by reporting). */
  trigger: 'schedule' | 'request' | 'conversions';
  timeStart: string;
  timeEnd: string;
  status: SyncJobStatus;
  attempts: number;
  queuedAt: string;
  finishedAt: string | null;
  error: string | null;
  parts: SyncJobPartView[];
}
