// What `POST /js/funnel` answers a page script: the tokens of the node the visitor is on, resolved
// from the session, as a page URL's tokens would be.
import type { RoutingSession } from '@funnel/routing';

/**
 * `{hit}` (the last hit: the page's), `{visitor}`, `{current-node-id}`, `{funnel-id}`,
 * `{traffic-source-id}`, `{page-id}`, `{cost}`, each tracking-field slot the entrance gave
 * (`{campaign}`, `{external}`, `{c1}`..`{c20}`) and each URL-buffer entry as `{data-<name>}`.
 */
export function viewTokensOf(session: RoutingSession): Record<string, string> {
  const tokens: Record<string, string> = {
    '{hit}': session.lastHitId,
    '{visitor}': session.visitorId,
    '{current-node-id}': session.currentNode,
    '{funnel-id}': session.idFunnel,
    '{traffic-source-id}': session.idTrafficSource,
    '{page-id}': session.currentPage,
    '{cost}': session.cost,
  };
  for (const slot of Object.keys(session.trackingFields)) tokens[`{${slot}}`] = session.trackingFields[slot];
  for (const name of Object.keys(session.urlBuffer)) tokens[`{data-${name}}`] = session.urlBuffer[name];
  return tokens;
}
