import { ASSETS_WEBHOOK_DELIVER_SUBJECT, ASSETS_WEBHOOK_TARGETS_SUBJECT } from './webhook-dispatch';
/**
 * The tracking edge's load of every routing asset, across accounts (no gateway route: only the
 * `tracking-edge` NATS user may call it). The edge pages through it at start, then follows the asset
 * events from `position`; an event at or before it is already in what the pages answered.
 */

/** `assets.internal.edgesnapshot`: one page of the non-deleted assets of EDGE_SNAPSHOT_KINDS, every account. */
export const ASSETS_EDGE_SNAPSHOT_SUBJECT = 'assets.internal.edgesnapshot';

/**
 * `assets.internal.middlewaresecrets`: the clear secrets of one middleware config's destination (and
 * of a funnel node's destination overrides), which the edge needs to call it and which its snapshot
 * lacks. No gateway route: only the `tracking-edge` NATS user may call it.
 */
export const ASSETS_MIDDLEWARE_SECRETS_SUBJECT = 'assets.internal.middlewaresecrets';

/** Subjects of the assets service that the gateway may not call (internal callers only). */
export const ASSETS_INTERNAL_SUBJECTS: readonly string[] = [
  ASSETS_EDGE_SNAPSHOT_SUBJECT,
  ASSETS_WEBHOOK_TARGETS_SUBJECT,
  ASSETS_WEBHOOK_DELIVER_SUBJECT,
  ASSETS_MIDDLEWARE_SECRETS_SUBJECT,
];

/** The body of `assets.internal.middlewaresecrets`: the config, and optionally the funnel node whose overrides are wanted. */
export interface MiddlewareSecretsRequest {
  accountId: string;
  idMiddlewareConfig: string;
  idFunnel?: string;
  idNode?: string;
}

/** The secrets of one destination, in clear; null where none is stored. */
export interface MiddlewareDestinationSecrets {
  basicAuthPassword: string | null;
  hmacSecret: string | null;
}

/** The answer: `config` null when the account has no such (non-deleted) config; `node` null when none was asked or the node has no overrides. */
export interface MiddlewareSecretsAnswer {
  config: MiddlewareDestinationSecrets | null;
  node: MiddlewareDestinationSecrets | null;
}

/** The kinds a funnel walk may touch (short links and categories route nothing). */
export const EDGE_SNAPSHOT_KINDS: readonly string[] = [
  'funnel',
  'funnelgroup',
  'pagegroup',
  'page',
  'condition',
  'logicscript',
  'middlewareconfig',
  'webhookconfig',
  'trafficsource',
  'offersource',
  'visitortag',
  'ainodesetting',
];

/** Default and largest page of the snapshot. */
export const EDGE_SNAPSHOT_PAGE_DEFAULT = 1000;
export const EDGE_SNAPSHOT_PAGE_MAX = 5000;

/** The request body: `after` is the previous page's `next` (absent for the first page). */
export interface EdgeSnapshotRequest {
  after?: string;
  limit?: number;
}

/** One asset as the edge keeps it: the read model's record without write-only secrets (as the event stream carries it). */
export interface EdgeSnapshotAsset {
  kind: string;
  accountId: string;
  assetId: string;
  /** The stream revision the record reflects (the next event of the asset has revision + 1). */
  revision: number;
  record: Record<string, unknown>;
}

export interface EdgeSnapshotPage {
  assets: EdgeSnapshotAsset[];
  /** Pass as `after` for the next page; null on the last one. */
  next: string | null;
  /**
   * The log position the read model had reached when this page was read (`<commit>/<prepare>`,
   * null before any event): every event up to it is reflected. Pages read later may reflect more.
   */
  position: string | null;
}
