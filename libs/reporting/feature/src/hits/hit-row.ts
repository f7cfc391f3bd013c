import { hitDefaults, type Hit } from '@funnel/reporting-domain';

/** The columns of a hit both stores keep as text under the same names (conversions and custom events: JSON). */
export interface HitTextColumns {
  account_id: string;
  hit_id: string;
  visitor_id: string;
  id_funnel: string;
  id_funnel_group: string;
  id_traffic_source: string;
  id_node: string;
  id_page: string;
  country_code: string;
  ip: string;
  cost: string;
  conversions: string;
  custom_events: string;
}

/**
 * A hit as both stores select it. Types are wider where the engines differ: SQLite keeps tracking
 * fields as JSON text and ClickHouse as a Map (an object); ClickHouse's JSON output may quote 64-bit integers.
 */
export interface HitRow extends HitTextColumns {
  tracking_fields: string | Record<string, string>;
  /** The hit's time, epoch milliseconds. */
  time_ms: number | string;
  is_entrance: number | string;
  postback_called: number | string;
}

/** Reads a selected row back into a hit. */
export function hitFromRow(row: HitRow): Hit {
  return {
    hitId: row.hit_id,
    visitorId: row.visitor_id,
    accountId: row.account_id,
    idFunnel: row.id_funnel,
    idFunnelGroup: row.id_funnel_group,
    idTrafficSource: row.id_traffic_source,
    idNode: row.id_node,
    idPage: row.id_page,
    countryCode: row.country_code,
    ip: row.ip,
    trackingFields: typeof row.tracking_fields === 'string' ? JSON.parse(row.tracking_fields) : row.tracking_fields,
    time: new Date(Number(row.time_ms)).toISOString(),
    isEntrance: Number(row.is_entrance) === 1,
    cost: row.cost,
    conversions: JSON.parse(row.conversions),
    customEvents: JSON.parse(row.custom_events),
    postbackCalled: Number(row.postback_called) === 1,
    ...hitDefaults(),
  };
}
