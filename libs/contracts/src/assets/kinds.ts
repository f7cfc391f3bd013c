import { AI_NODE_SETTING_KIND } from './ai-node-setting';
import { AssetKindDescriptor } from './asset-kind';
import { CATEGORY_KIND } from './category';
import { CONDITION_KIND } from './condition';
import { LOGIC_SCRIPT_KIND } from './logic-script';
import { OFFER_SOURCE_KIND } from './offer-source';
import { PAGE_KIND } from './page';
import { PAGE_GROUP_KIND } from './page-group';
import { TRAFFIC_SOURCE_KIND } from './traffic-source';
import { VISITOR_TAG_KIND } from './visitor-tag';
import { WEBHOOK_CONFIG_KIND } from './webhook-config';
import { SHORT_LINK_KIND } from './short-link';
import { MIDDLEWARE_CONFIG_KIND } from './middleware-config';
import { FUNNEL_GROUP_KIND } from './funnel-group';
import { FUNNEL_KIND } from './funnel';

/** Every asset kind the API serves. Adding a kind = describing it here and registering its behaviour in the domain. */
export const ASSET_KINDS: readonly AssetKindDescriptor[] = [
  VISITOR_TAG_KIND,
  CATEGORY_KIND,
  TRAFFIC_SOURCE_KIND,
  OFFER_SOURCE_KIND,
  PAGE_KIND,
  PAGE_GROUP_KIND,
  CONDITION_KIND,
  LOGIC_SCRIPT_KIND,
  AI_NODE_SETTING_KIND,
  WEBHOOK_CONFIG_KIND,
  SHORT_LINK_KIND,
  MIDDLEWARE_CONFIG_KIND,
  FUNNEL_GROUP_KIND,
  FUNNEL_KIND,
];

export function assetKindByName(kind: string): AssetKindDescriptor | undefined {
  return ASSET_KINDS.find((k) => k.kind === kind);
}
