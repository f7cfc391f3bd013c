import { strFromU8, unzipSync } from 'fflate';
import { AdPlatformError, type CampaignDayCost } from '@funnel/integrations-domain';

/** The most of one report file, uncompressed, that is read (a guard against a zip bomb). */
export const MAX_REPORT_CSV_BYTES = 64 * 1024 * 1024;

/**
 * The CSV of a downloaded report: Microsoft Advertising's `ReportDownloadUrl` answers a zip archive
 * holding one `.csv` file (fflate unzips it; an entry announcing more than MAX_REPORT_CSV_BYTES is
 * not inflated). UTF-8, with or without its byte order mark.
 */
export function reportCsvOf(zip: Uint8Array): string {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip, { filter: (file) => /\.csv$/i.test(file.name) && file.originalSize <= MAX_REPORT_CSV_BYTES });
  } catch {
    throw new AdPlatformError('unavailable', 'the report download is not a readable zip archive');
  }
  const [name] = Object.keys(files);
  if (name === undefined) throw new AdPlatformError('unavailable', `the report archive holds no CSV file of at most ${MAX_REPORT_CSV_BYTES} bytes`);
  return strFromU8(files[name]).replace(/^\uFEFF/, '');
}

/** RFC 4180 records: fields split on commas, double-quoted fields may hold commas, quotes ("") and line breaks. */
export function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || record.length) {
    record.push(field);
    records.push(record);
  }
  return records;
}

/** A report's `TimePeriod` of a daily row as `YYYY-MM-DD` (`2026-03-10`, or `3/10/2026` as older formats write it), or null. */
export function reportDayOf(timePeriod: string): string | null {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(timePeriod.trim());
  if (iso) return `${iso[1]}-${iso[2]}-${iso[3]}`;
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(timePeriod.trim());
  return us ? `${us[3]}-${us[1].padStart(2, '0')}-${us[2].padStart(2, '0')}` : null;
}

/**
 * The spend rows of a campaign performance report with daily aggregation (columns TimePeriod,
 * CampaignId, CurrencyCode, Spend, in any order): one per campaign and day of the ad account's time
 * zone, the days outside [since, until] left out. Lines before the column header (a report header)
 * and after the data (the copyright footer) are skipped.
 */
export function campaignDayCostsOf(csv: string, window: { since: string; until: string }, fallbackCurrency = ''): CampaignDayCost[] {
  const records = csvRecords(csv);
  const headerAt = records.findIndex((record) => record.includes('TimePeriod') && record.includes('CampaignId') && record.includes('Spend'));
  if (headerAt < 0) throw new AdPlatformError('unavailable', 'the report has no TimePeriod, CampaignId and Spend columns');
  const header = records[headerAt];
  const at = {
    day: header.indexOf('TimePeriod'),
    campaign: header.indexOf('CampaignId'),
    spend: header.indexOf('Spend'),
    currency: header.indexOf('CurrencyCode'),
  };
  const costs: CampaignDayCost[] = [];
  for (const record of records.slice(headerAt + 1)) {
    if (record.length < header.length) continue;
    const day = reportDayOf(record[at.day]);
    const campaignId = record[at.campaign].trim();
    const spend = Number(record[at.spend].replace(/,/g, ''));
    if (!day || !/^\d+$/.test(campaignId) || !Number.isFinite(spend) || day < window.since || day > window.until) continue;
    costs.push({ campaignId, day, spend, currency: at.currency >= 0 ? record[at.currency].trim() : fallbackCurrency });
  }
  return costs;
}
