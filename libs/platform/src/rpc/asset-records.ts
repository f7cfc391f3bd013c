import { type AssetKindDescriptor, type CallerContext, assetSubject, jsonValue } from '@funnel/contracts';
import type { ServiceClient } from './service-client';

/**
 * One asset's full record from the assets service (`assets.<kind>.findById`), as another service
 * reads it with the caller's (or a job's account's) context: parsed whether it crossed NATS or came
 * serialized within one process (find/byId answers a SerializedJson there). Rejects with the
 * service's error: a 404 when the account has no such asset.
 */
export async function requestAssetRecord<T>(client: ServiceClient, kind: AssetKindDescriptor, context: CallerContext, id: string): Promise<T> {
  const reply = await client.request<{ result?: unknown } | undefined>(assetSubject(kind.kind, 'findById'), {
    context,
    body: { query: { [kind.idField]: id } },
  });
  return jsonValue<T>(reply?.result);
}
