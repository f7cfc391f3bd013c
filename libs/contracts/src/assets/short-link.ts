import { IsIn, IsObject, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { AssetKindDescriptor } from './asset-kind';
import { IsAssetId } from './id-validators';
import { ASSET_STATUSES, AssetStatus, NAME_MAX, NAME_MIN } from './requests';

/** A short link's slug: the path segment it answers on, unique among the account's non-deleted links. */
export const SLUG_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const SLUG_MAX = 64;
export const SHORT_LINK_URL_MAX = 4096;
/** The HTTP status a short link redirects with (strings, as a page's redirectType). */
export const SHORT_LINK_REDIRECT_TYPES = ['301', '302', '307'] as const;
export type ShortLinkRedirectType = (typeof SHORT_LINK_REDIRECT_TYPES)[number];

/** ShortLink. Not category-managed. `destinationUrl` is checked by the domain's short-link rules (absolute http(s)). */
export class ShortLinkDto {
  @IsString() @IsAssetId() idShortLink!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) shortLinkName!: string;
  @IsString() @Matches(SLUG_PATTERN, { message: `slug must match ${SLUG_PATTERN.source}` }) slug!: string;
  @IsString() @MaxLength(SHORT_LINK_URL_MAX) destinationUrl!: string;
  @IsOptional() @IsIn(SHORT_LINK_REDIRECT_TYPES) redirectType: ShortLinkRedirectType = '302';
  @IsOptional() @IsIn(ASSET_STATUSES) status?: AssetStatus;
  @IsOptional() @IsObject() meta?: Record<string, unknown>;
}

export const SHORT_LINK_KIND: AssetKindDescriptor = {
  kind: 'shortlink',
  eventPrefix: 'ShortLink',
  idField: 'idShortLink',
  idsParam: 'idShortLinks',
  nameField: 'shortLinkName',
  recordDto: ShortLinkDto,
  paths: ['/shortlink'],
  operations: ['list', 'findById', 'findByIds', 'findBySlug', 'findByStatus', 'create', 'update', 'duplicate', 'delete', 'archive', 'unarchive'],
  list: { statusRequired: true, defaultStatus: 'all', filters: [] },
  findByStatusFilters: [],
  isParent: false,
  lookups: { findBySlug: { param: 'slug', field: 'slug', single: true } },
  uniqueFields: [{ field: 'slug', code: 'SHORTLINK.SLUG_TAKEN', maxLength: SLUG_MAX }],
};
