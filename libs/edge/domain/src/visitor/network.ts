// A network database record (MaxMind GeoIP2 ISP, GeoLite2 / ip-location-db ASN, GeoIP2 Connection-Type)
// -> isp, connectionType, mobileCarrier.
import { UNKNOWN } from './unknown';

export interface NetworkAttributes {
  isp: string;
  /** `broadband`, `cellular`, `corporate`, `satellite`, `dialup`. */
  connectionType: string;
  /** The carrier's name when the network is a mobile one (the record names its mobile country code). */
  mobileCarrier: string;
}

export const UNKNOWN_NETWORK: NetworkAttributes = Object.freeze({ isp: UNKNOWN, connectionType: UNKNOWN, mobileCarrier: UNKNOWN });

/** MaxMind's connection types -> the edge's words. */
const CONNECTION_TYPES: Readonly<Record<string, string>> = {
  'Cable/DSL': 'broadband',
  Cellular: 'cellular',
  Corporate: 'corporate',
  Satellite: 'satellite',
  Dialup: 'dialup',
};

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The network attributes one record gives; `unknown` for each it does not. */
export function networkAttributes(record: unknown): NetworkAttributes {
  if (typeof record !== 'object' || record === null) return UNKNOWN_NETWORK;
  const r = record as Record<string, unknown>;
  const isp = text(r.isp) ?? text(r.organization) ?? text(r.autonomous_system_organization) ?? text(r.as_name);
  const mobile = text(r.mobile_country_code) !== undefined;
  const connection = text(r.connection_type);
  return {
    isp: isp ?? UNKNOWN,
    connectionType: connection !== undefined ? (CONNECTION_TYPES[connection] ?? connection.toLowerCase()) : mobile ? 'cellular' : UNKNOWN,
    mobileCarrier: mobile ? (text(r.isp) ?? text(r.carrier) ?? UNKNOWN) : UNKNOWN,
  };
}

/** Several databases' answers for one address: the first known value of each attribute. */
export function mergeNetworkAttributes(parts: readonly NetworkAttributes[]): NetworkAttributes {
  if (parts.length === 1) return parts[0];
  const first = (name: keyof NetworkAttributes) => parts.find((part) => part[name] !== UNKNOWN)?.[name] ?? UNKNOWN;
  return { isp: first('isp'), connectionType: first('connectionType'), mobileCarrier: first('mobileCarrier') };
}
