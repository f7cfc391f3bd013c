import { ServiceError } from '../errors';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ConvertedHitDto, decimalText, isDateTime } from './updates';
import {
  CONVERSION_ROWS_PER_SLICE,
  parseConversionsUpdate,
  parseConversionsUpdateInSlices,
  parseCostUpdate,
  parseCustomEventsUpdate,
  parseResetUpdate,
} from './validate';

const ID = '0AbCdEfGhIjK';
const T = '2026-11-20T10:00:00Z';
const H1 = '0AbCdEfGhIj1';
const H2 = '0AbCdEfGhIj2';
const H3 = '0AbCdEfGhIj3';
const failure = (work: () => unknown): ServiceError => {
  try {
    work();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};
const fields = (error: ServiceError) => error.details.map((d) => `${d.field}:${d.code}`);

describe('reporting update validation', () => {
  it('normalises a conversions update and fills its defaults', () => {
    expect(
      parseConversionsUpdate({
        hits: [
          { hitId: H1, payout: 12.5 },
          { hitId: H2, payout: '-1', transactionId: 't', time: '2026-01-02T03:04:05Z' },
        ],
      }),
    ).toEqual({
      hits: [
        { hitId: H1, payout: '12.5', transactionId: '' },
        { hitId: H2, payout: '-1', transactionId: 't', time: '2026-01-02T03:04:05Z' },
      ],
      postbackCalls: 'none',
      overridePayout: null,
      disablePostbacks: false,
      forcePostbacks: false,
    });
  });

  it('answers 413 above 10,000 conversion rows and 400 for none', () => {
    const many = failure(() => parseConversionsUpdate({ hits: Array.from({ length: 10_001 }, () => ({ hitId: H1, payout: 1 })) }));
    expect([many.status, many.code]).toEqual([413, 'REPORTING.TOO_MANY_ROWS']);
    expect(parseConversionsUpdate({ hits: Array.from({ length: 10_000 }, () => ({ hitId: H1, payout: 1 })) }).hits).toHaveLength(10_000);
    expect(fields(failure(() => parseConversionsUpdate({ hits: [] })))).toEqual(['hits:arrayMinSize']);
  });

  it('names every bad conversion row and unknown fields at any depth', () => {
    const error = failure(() =>
      parseConversionsUpdate({
        hits: [
          { hitId: H1, payout: 1 },
          { hitId: 'a b', payout: -2, extra: 1 },
          { payout: '1', time: '2026-02-30T00:00:00Z' },
        ],
        colour: 'red',
      }),
    );
    expect(error.status).toBe(400);
    expect(fields(error)).toEqual(['colour:unknownField']);
    expect(
      fields(
        failure(() =>
          parseConversionsUpdate({
            hits: [
              { hitId: H1, payout: 1 },
              { hitId: 'a b', payout: -2, extra: 1 },
              { payout: '1', time: '2026-02-30T00:00:00Z' },
            ],
          }),
        ),
      ),
    ).toEqual(['hits[1].extra:unknownField', 'hits[1].hitId:isAssetId', 'hits[1].payout:isDecimal', 'hits[2].hitId:required', 'hits[2].time:isIso8601']);
  });

  it('checks a 10,000-row conversions body in slices, letting the caller yield between them, to the same result and errors', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ hitId: H1, payout: i % 7, transactionId: `T${i}` }));
    let yields = 0;
    const between = async () => void (yields += 1);
    expect(await parseConversionsUpdateInSlices({ hits: rows }, between)).toEqual(parseConversionsUpdate({ hits: rows }));
    expect(yields).toBe(10_000 / CONVERSION_ROWS_PER_SLICE - 1);
    const bad = [...rows.slice(0, 9000), { hitId: 'a b', payout: 1 }, ...rows.slice(9001)];
    await expect(parseConversionsUpdateInSlices({ hits: bad }, between)).rejects.toMatchObject({ details: [{ field: 'hits[9000].hitId', code: 'isAssetId' }] });
  });

  it('rejects a custom-events batch naming each bad row index and field', () => {
    const error = failure(() =>
      parseCustomEventsUpdate({
        hits: [
          { hitId: H1, eventNumber: 1, time: T },
          { hitId: H2, eventNumber: 11, time: T },
          { hitId: H3, eventNumber: 2, count: 'x', time: 'soon' },
        ],
      }),
    );
    expect(fields(error)).toEqual(['hits[1].eventNumber:max', 'hits[2].count:isInt', 'hits[2].time:isIso8601']);
    expect(error.message).toBe('invalid body: hits[1].eventNumber must not be greater than 10');
    expect(fields(failure(() => parseCustomEventsUpdate({ hits: Array.from({ length: 11 }, () => ({ hitId: H1, eventNumber: 1, time: T })) })))).toEqual([
      'hits:arrayMaxSize',
    ]);
    expect(parseCustomEventsUpdate({ hits: [{ hitId: H1, eventNumber: 3, time: T }] }).hits).toEqual([{ hitId: H1, eventNumber: 3, count: 1, time: T }]);
  });

  it("takes a custom-events row without a time (the job's queuedAt, as a conversion's)", () => {
    expect(
      parseCustomEventsUpdate({
        hits: [
          { hitId: H1, eventNumber: 3 },
          { hitId: H2, eventNumber: 4, time: null },
        ],
      }).hits,
    ).toEqual([
      { hitId: H1, eventNumber: 3, count: 1 },
      { hitId: H2, eventNumber: 4, count: 1 },
    ]);
  });

  const cost = { funnelIDs: [ID], trafficSourceIDs: [], timeStart: '2026-01-01T00:00:00Z', timeEnd: '2026-01-02T00:00:00Z' };
  it('checks cost segments, asset ids, countries and the window', () => {
    expect(
      parseCostUpdate({
        ...cost,
        segments: [{ cost: '10.50', costType: 'costForWholeSegment', restrictToCountryCode: 'DE', restrictToTrackingFields: [{ key: 'c1', value: 'x' }] }],
      }).segments,
    ).toEqual([{ cost: '10.5', costType: 'costForWholeSegment', restrictToCountryCode: 'DE', restrictToTrackingFields: [{ key: 'c1', value: 'x' }] }]);
    expect(fields(failure(() => parseCostUpdate({ ...cost, funnelIDs: ['short'], segments: [{ cost: 1, costType: 'costPerEntrance' }] })))).toEqual([
      'funnelIDs:isAssetId',
    ]);
    expect(fields(failure(() => parseCostUpdate({ ...cost, segments: [{ cost: -1, costType: 'x', restrictToCountryCode: 'XX' }] })))).toEqual([
      'segments[0].cost:isDecimal',
      'segments[0].costType:isIn',
      'segments[0].restrictToCountryCode:isISO31661Alpha2',
    ]);
    expect(fields(failure(() => parseCostUpdate({ ...cost, segments: [] })))).toEqual(['segments:arrayMinSize']);
    expect(fields(failure(() => parseCostUpdate({ ...cost, timeEnd: cost.timeStart, segments: [{ cost: 1, costType: 'costPerEntrance' }] })))).toEqual([
      'timeEnd:isAfterStart',
    ]);
    expect(fields(failure(() => parseCostUpdate({ ...cost, timeEnd: '2027-01-03T00:00:00Z', segments: [{ cost: 1, costType: 'costPerEntrance' }] })))).toEqual([
      'timeEnd:maxWindow',
    ]);
  });

  it('checks a reset filter, its tracking fields and unknown fields', () => {
    const window = { timeStart: '2026-01-01T00:00:00Z', timeEnd: '2026-12-31T00:00:00Z' };
    expect(parseResetUpdate({ ...window, restrictToCountryCodes: ['US'], restrictToTrackingFields: { c1: ['a', 'b'] } })).toMatchObject({
      restrictToCountryCodes: ['US'],
      restrictToFunnelIDs: [],
      restrictToTrackingFields: { c1: ['a', 'b'] },
    });
    expect(
      fields(
        failure(() =>
          parseResetUpdate({ ...window, restrictToIPs: ['1.2.3'], restrictToCountryCodes: ['us'], restrictToTrackingFields: { c99: ['a'] }, more: 1 }),
        ),
      ),
    ).toEqual(['more:unknownField', 'restrictToCountryCodes:matches', 'restrictToIPs:isIp', 'restrictToTrackingFields:isTrackingFieldsFilter']);
  });

  it('reads times as RFC 3339 date-times with a zone on real calendar days (the API document says format: date-time)', () => {
    expect(['2026-11-20T10:00:00Z', '2026-11-20T10:00:00.123+02:00', '2024-02-29T00:00:00Z', '2026-11-20t10:00:00z'].map(isDateTime)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    // A date alone, a time without a zone (the server's own zone would decide it), ISO 8601's other forms: refused.
    const refused = [
      '2026-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      'yesterday',
      '2026-11-20T25:00:00Z',
      '2026-11-20',
      '2026-11-20T10:00:00',
      '2026-W47',
      '20261120T100000Z',
    ];
    expect(refused.map(isDateTime)).toEqual(refused.map(() => false));
    const window = { funnelIDs: [], trafficSourceIDs: [], segments: [{ cost: '1', costType: 'costPerEntrance' }] };
    expect(fields(failure(() => parseCostUpdate({ ...window, timeStart: '2026-01-01', timeEnd: '2026-01-02T00:00:00Z' })))).toEqual(['timeStart:isIso8601']);
    expect(fields(failure(() => parseConversionsUpdate({ hits: [{ hitId: H1, payout: 1, time: '2026-01-01' }] })))).toEqual(['hits[0].time:isIso8601']);
  });
});

describe('conversion rows: the hand-written check (the hot path) and ConvertedHitDto (what the API document shows) agree', () => {
  const rows: unknown[] = [
    { hitId: H1, payout: '12.5' },
    { hitId: H1, payout: 3, transactionId: 'tx', time: T },
    { hitId: H1, payout: -1 },
    { hitId: H1, payout: '-1' },
    { hitId: H1, payout: '1.1234567' },
    { hitId: H1, payout: -2 },
    { hitId: H1, payout: true },
    { hitId: 'short', payout: 1 },
    { hitId: 7, payout: 1 },
    { payout: 1 },
    { hitId: H1 },
    { hitId: H1, payout: 1, transactionId: 'x'.repeat(257) },
    { hitId: H1, payout: 1, transactionId: 5 },
    { hitId: H1, payout: 1, time: '2026-11-20' },
    { hitId: H1, payout: 1, time: 5 },
    { hitId: H1, payout: 1, extra: true },
  ];
  it.each(rows.map((row) => [JSON.stringify(row).slice(0, 100), row]))('%s', (_shown, row) => {
    const byDto = validateSync(plainToInstance(ConvertedHitDto, row), { whitelist: true, forbidNonWhitelisted: true }).length === 0;
    let byCheck = true;
    try {
      parseConversionsUpdate({ hits: [row] });
    } catch {
      byCheck = false;
    }
    expect(byCheck).toBe(byDto);
  });
});

describe('decimal text', () => {
  it('is canonical whatever form it came in', () => {
    expect(['12.5', '012.50', 12.5, '0', '-0', '-1', '0.000001', '100', '1.000000'].map(decimalText)).toEqual([
      '12.5',
      '12.5',
      '12.5',
      '0',
      '0',
      '-1',
      '0.000001',
      '100',
      '1',
    ]);
    expect(['1e3', '1.0000001', '', 'abc', NaN, Infinity, '1234567890123'].map(decimalText)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
