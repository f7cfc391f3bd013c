import { aiNodeSettingRules } from './ai-node-setting';
import { conditionRules } from './condition';
import type { KindRules } from './kind-rules';
import { logicScriptRules } from './logic-script';
import { offerSourceRules } from './offer-source';
import { pageGroupRules } from './page-group';
import { pageRules } from './page';
import { trafficSourceRules } from './traffic-source';
import { webhookConfigRules } from './webhook-config';
import { shortLinkRules } from './short-link';
import { middlewareConfigRules } from './middleware-config';
import { funnelRules } from './funnel';

export * from './kind-rules';
export * from './url-rules';
export * from './condition-rules';
export * from './http-rules';
export * from './funnel/index';

/** Each kind's own rules, by kind name; a kind not listed has none beyond its DTO. */
export const KIND_RULES: Readonly<Record<string, KindRules>> = {
  trafficsource: trafficSourceRules,
  offersource: offerSourceRules,
  page: pageRules,
  pagegroup: pageGroupRules,
  condition: conditionRules,
  logicscript: logicScriptRules,
  ainodesetting: aiNodeSettingRules,
  webhookconfig: webhookConfigRules,
  shortlink: shortLinkRules,
  middlewareconfig: middlewareConfigRules,
  funnel: funnelRules,
};
