import { AssetKindDescriptor } from './asset-kind';
import { CATEGORY_KIND } from './category';
import { VISITOR_TAG_KIND } from './visitor-tag';

/** Every asset kind the API serves. Adding a kind = describing it here and registering its behaviour in the domain. */
export const ASSET_KINDS: readonly AssetKindDescriptor[] = [VISITOR_TAG_KIND, CATEGORY_KIND];

export function assetKindByName(kind: string): AssetKindDescriptor | undefined {
  return ASSET_KINDS.find((k) => k.kind === kind);
}
