import { FUNNEL_KIND, WEBHOOK_CONFIG_KIND } from '@funnel/contracts';
import type { KindActionSet } from '../asset-actions';
import { WebhookConfigActionsOptions, webhookConfigActions } from './webhook-config.actions';
import { funnelActions } from './funnel.actions';

export { WEBHOOK_TEST_EVENT_TYPE, webhookConfigActions } from './webhook-config.actions';
export type { WebhookConfigActionsOptions } from './webhook-config.actions';
export { funnelActions } from './funnel.actions';

/** What the kinds' actions need from the app: the secret cipher and the outgoing HTTP client. */
export type AssetKindActionsOptions = WebhookConfigActionsOptions;

/** Every kind's own actions by kind name, for AssetsFeatureModule.forRoot({ actions }). */
export function assetKindActions(options: AssetKindActionsOptions): Record<string, KindActionSet> {
  return { [WEBHOOK_CONFIG_KIND.kind]: webhookConfigActions(options), [FUNNEL_KIND.kind]: funnelActions(options) };
}
