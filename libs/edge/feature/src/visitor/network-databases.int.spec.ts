import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@funnel/platform';
import { writeIpv4Mmdb } from './testing/write-mmdb';
import { visitorConfig, visitorResolverOptionsFrom } from './visitor-config';
import { VisitorResolver } from './visitor-resolver';

// GEOIP_ISP_DB with MaxMind-format ISP, ASN and Connection-Type databases (small files written here:
// the repository ships none) beside the default GeoLite2 City data.
let dir: string;
let resolver: VisitorResolver;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edge-network-db-'));
  const isp = join(dir, 'isp.mmdb');
  const asn = join(dir, 'asn.mmdb');
  const connection = join(dir, 'connection.mmdb');
  writeIpv4Mmdb(isp, 'GeoIP2-ISP', {
    '8.8.8.0/24': { autonomous_system_number: 15169, autonomous_system_organization: 'GOOGLE', isp: 'Google', organization: 'Google' },
    '85.214.0.0/16': { isp: 'Vodafone Germany', mobile_country_code: '262', mobile_network_code: '02' },
  });
  writeIpv4Mmdb(asn, 'GeoLite2-ASN', { '81.2.0.0/16': { autonomous_system_number: 20712, autonomous_system_organization: 'Andrews & Arnold Ltd' } });
  writeIpv4Mmdb(connection, 'GeoIP2-Connection-Type', { '8.8.0.0/16': { connection_type: 'Corporate' }, '81.2.69.0/24': { connection_type: 'Cable/DSL' } });
  resolver = await VisitorResolver.open(visitorResolverOptionsFrom(loadConfig(visitorConfig, { GEOIP_ISP_DB: `${isp},${asn},${connection}` })));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const attributesOf = (ip: string) => resolver.resolve({ ip, headers: {} }).attributes;

describe('network databases (GEOIP_ISP_DB)', () => {
  it('names the ISP and the connection type from the databases that know the address', () => {
    expect(attributesOf('8.8.8.8')).toMatchObject({ country: 'US', isp: 'Google', connectionType: 'corporate', mobileCarrier: 'unknown' });
    expect(attributesOf('81.2.69.142')).toMatchObject({ country: 'GB', isp: 'Andrews & Arnold Ltd', connectionType: 'broadband', mobileCarrier: 'unknown' });
  });

  it('names the carrier of a mobile network', () => {
    expect(attributesOf('85.214.132.117')).toMatchObject({
      country: 'DE',
      isp: 'Vodafone Germany',
      connectionType: 'cellular',
      mobileCarrier: 'Vodafone Germany',
    });
  });

  it('holds unknown for an address no network database knows, and for a private one', () => {
    for (const ip of ['49.207.0.1', '10.0.0.1', '2a00:1450:4001:81c::200e']) {
      expect(attributesOf(ip)).toMatchObject({ isp: 'unknown', connectionType: 'unknown', mobileCarrier: 'unknown' });
    }
  });
});
