import type { HitConversion } from '@funnel/reporting-domain';
import type { WarehouseRunner } from '../engines/warehouse';
import { convertedHitsSql } from '../sql/conversions-sql';
import type { HitKey } from '../sql/hits-sql';

/** A conversion as reporting applied it to a hit. */
export interface WindowConversion extends HitConversion {
  hitId: string;
}

export interface WindowConversionsQuery {
  accountId: string;
  trafficSourceIds: readonly string[];
  /** The conversions' own times: [startMs, endMs). */
  startMs: number;
  endMs: number;
  /** The previous page's `next`. */
  after?: HitKey;
  /** Hits read per page. */
  limit: number;
}

export interface WindowConversionsPage {
  conversions: WindowConversion[];
  /** Where the next page starts, or null on the last page. */
  next: HitKey | null;
}

/**
 * The conversions whose own time is in the window on the account's hits of the traffic sources, a
 * page of hits at a time (oldest hit first, in each hit the order it holds them): the
 * conversions applied by updates and incoming postbacks, as the warehouse keeps them.
 */
export async function windowConversions(warehouse: WarehouseRunner, query: WindowConversionsQuery): Promise<WindowConversionsPage> {
  if (!query.trafficSourceIds.length) return { conversions: [], next: null };
  const hits = await warehouse.rows(convertedHitsSql(warehouse.dialect, warehouse.table, query));
  const conversions: WindowConversion[] = [];
  for (const hit of hits) {
    for (const conversion of JSON.parse(String(hit.conversions)) as HitConversion[]) {
      const ms = Date.parse(conversion.time);
      if (ms >= query.startMs && ms < query.endMs) conversions.push({ hitId: String(hit.hit_id), ...conversion });
    }
  }
  const last = hits[hits.length - 1];
  return { conversions, next: hits.length === query.limit && last ? { timeMs: Number(last.time_ms), hitId: String(last.hit_id) } : null };
}
