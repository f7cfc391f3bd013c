import {
  ASSETS_EDGE_SNAPSHOT_SUBJECT,
  BILLING_EDGE_DOMAINS_SUBJECT,
  type CallerContext,
  type EdgeDomain,
  type EdgeDomainsPage,
  type EdgeSnapshotAsset,
  type EdgeSnapshotPage,
} from '@funnel/contracts';
import type { ServiceClient } from '@funnel/platform';

/** The internal subjects carry no caller: they answer every account (the NATS permissions say who may call). */
const NO_CALLER: CallerContext = { accountId: '', userId: '', permissions: [], correlationId: 'tracking-edge-snapshot' };

/** Pages through `assets.internal.edgesnapshot`; `position` is the first page's (every page reflects at least it). */
export async function loadSnapshotAssets(
  client: ServiceClient,
  pageSize: number,
  timeoutMs?: number,
): Promise<{ assets: EdgeSnapshotAsset[]; position: string | null }> {
  const assets: EdgeSnapshotAsset[] = [];
  let after: string | undefined;
  let position: string | null | undefined;
  for (;;) {
    const page = await client.request<EdgeSnapshotPage>(ASSETS_EDGE_SNAPSHOT_SUBJECT, { context: NO_CALLER, body: { after, limit: pageSize } }, { timeoutMs });
    if (position === undefined) position = page.position;
    for (const asset of page.assets) assets.push(asset);
    if (!page.next) return { assets, position: position ?? null };
    after = page.next;
  }
}

/** Pages through `billing.internal.domains`. */
export async function loadEdgeDomains(client: ServiceClient, pageSize: number, timeoutMs?: number): Promise<EdgeDomain[]> {
  const domains: EdgeDomain[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await client.request<EdgeDomainsPage>(BILLING_EDGE_DOMAINS_SUBJECT, { context: NO_CALLER, body: { after, limit: pageSize } }, { timeoutMs });
    domains.push(...page.domains);
    if (!page.next) return domains;
    after = page.next;
  }
}
