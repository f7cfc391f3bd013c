import { UNKNOWN_NETWORK, mergeNetworkAttributes, networkAttributes } from './network';

describe('networkAttributes', () => {
  it('reads a MaxMind GeoIP2 ISP record of a mobile network', () => {
    const record = {
      autonomous_system_number: 21928,
      autonomous_system_organization: 'T-Mobile USA, Inc.',
      isp: 'T-Mobile USA',
      organization: 'T-Mobile USA',
      mobile_country_code: '310',
      mobile_network_code: '260',
    };
    expect(networkAttributes(record)).toEqual({ isp: 'T-Mobile USA', connectionType: 'cellular', mobileCarrier: 'T-Mobile USA' });
  });

  it('reads an ASN record (GeoLite2-ASN or ip-location-db) as the ISP only', () => {
    expect(networkAttributes({ autonomous_system_number: 15169, autonomous_system_organization: 'GOOGLE' })).toEqual({
      isp: 'GOOGLE',
      connectionType: 'unknown',
      mobileCarrier: 'unknown',
    });
  });

  it.each([
    ['Cable/DSL', 'broadband'],
    ['Cellular', 'cellular'],
    ['Corporate', 'corporate'],
    ['Satellite', 'satellite'],
    ['Dialup', 'dialup'],
  ])('names the connection type %s %s', (connection_type, connectionType) => {
    expect(networkAttributes({ connection_type })).toEqual({ isp: 'unknown', connectionType, mobileCarrier: 'unknown' });
  });

  it.each([null, undefined, 'isp', {}])('is unknown for %p', (record) => {
    expect(networkAttributes(record)).toEqual(UNKNOWN_NETWORK);
  });

  it('merges several databases, the first known value of each attribute winning', () => {
    const isp = networkAttributes({ isp: 'Comcast Cable' });
    const connection = networkAttributes({ connection_type: 'Cable/DSL' });
    expect(mergeNetworkAttributes([isp, connection])).toEqual({ isp: 'Comcast Cable', connectionType: 'broadband', mobileCarrier: 'unknown' });
    expect(mergeNetworkAttributes([UNKNOWN_NETWORK, isp])).toEqual({ isp: 'Comcast Cable', connectionType: 'unknown', mobileCarrier: 'unknown' });
  });
});
