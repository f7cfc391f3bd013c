import { strToU8, zipSync } from 'fflate';
import { campaignDayCostsOf, csvRecords, reportCsvOf, reportDayOf } from './microsoft-report';
import { MICROSOFT_TIME_ZONE_NAMES, ianaZoneOf } from './microsoft-time-zones';

describe('Microsoft Advertising report files', () => {
  it('reads the CSV out of the zip, without its byte order mark; a broken archive or one without a CSV is unavailable', () => {
    const zip = zipSync({ 'readme.txt': strToU8('x'), 'report.csv': strToU8('\uFEFF"TimePeriod","CampaignId","Spend"\r\n') });
    expect(reportCsvOf(zip)).toBe('"TimePeriod","CampaignId","Spend"\r\n');
    expect(() => reportCsvOf(zipSync({ 'report.txt': strToU8('x') }))).toThrow(expect.objectContaining({ kind: 'unavailable' }));
    expect(() => reportCsvOf(strToU8('not a zip'))).toThrow(expect.objectContaining({ kind: 'unavailable' }));
  });

  it('splits RFC 4180 records: quoted commas, doubled quotes, line breaks in quotes, CRLF', () => {
    expect(csvRecords('a,"b,c","say ""hi"""\r\n"two\nlines",,x\n')).toEqual([
      ['a', 'b,c', 'say "hi"'],
      ['two\nlines', '', 'x'],
    ]);
  });

  it('reads daily spend rows in any column order, both date forms, skipping a report header, the footer and days outside the window', () => {
    const csv = [
      '"Report Name: Spend"',
      '"Report Time: 3/9/2026 - 3/11/2026"',
      '',
      '"Spend","CampaignId","TimePeriod","CurrencyCode"',
      '"1,234.50","7001","2026-03-10","EUR"',
      '"0.00","7002","3/10/2026","EUR"',
      '"9.99","7003","2026-03-12","EUR"',
      '"bad","7004","2026-03-10","EUR"',
      '',
      '"©2026 Microsoft Corporation. All rights reserved. "',
    ].join('\r\n');
    expect(campaignDayCostsOf(csv, { since: '2026-03-09', until: '2026-03-11' })).toEqual([
      { campaignId: '7001', day: '2026-03-10', spend: 1234.5, currency: 'EUR' },
      { campaignId: '7002', day: '2026-03-10', spend: 0, currency: 'EUR' },
    ]);
    expect(reportDayOf('12/1/2026')).toBe('2026-12-01');
    expect(reportDayOf('Total')).toBeNull();
    expect(() => campaignDayCostsOf('"CampaignId","Spend"\r\n', { since: '2026-03-09', until: '2026-03-11' })).toThrow(
      expect.objectContaining({ kind: 'unavailable' }),
    );
  });
});

describe('Microsoft Advertising time zones', () => {
  it('maps every documented TimeZoneType value to a zone the runtime knows, and nothing else', () => {
    expect(MICROSOFT_TIME_ZONE_NAMES.length).toBe(79);
    for (const name of MICROSOFT_TIME_ZONE_NAMES) {
      const zone = ianaZoneOf(name)!;
      expect(() => new Intl.DateTimeFormat('en', { timeZone: zone })).not.toThrow();
    }
    expect(ianaZoneOf('EasternTimeUSCanada')).toBe('America/New_York');
    expect(ianaZoneOf('BrusselsCopenhagenMadridParis')).toBe('Europe/Paris');
    expect(ianaZoneOf('ChennaiKolkataMumbaiNewDelhi')).toBe('Asia/Kolkata');
    expect(ianaZoneOf('toString')).toBeNull();
    expect(ianaZoneOf('Mars')).toBeNull();
    expect(ianaZoneOf(undefined)).toBeNull();
  });
});
