import { ServiceError } from '../../errors';
import type { DrilldownRequest } from '../queries';
import {
  parseAttributesQuery,
  parseDrilldownRequest,
  parseExplorerHitRequest,
  parseExplorerVisitorRequest,
  parsePostbackLogRequest,
  parseRawEventsRequest,
} from './parse';
import { parseColumnFilter } from './requests';

const ID = '0AbCdEfGhIjK';
const START = '2026-11-20T00:00:00-05:00';
const END = '2026-11-21T00:00:00-05:00';
const failure = (work: () => unknown): ServiceError => {
  try {
    work();
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};
const fields = (work: () => unknown) => {
  const error = failure(work);
  expect([error.status, error.code]).toEqual([400, 'REQUEST.VALIDATION_FAILED']);
  return error.details.map((d) => `${d.field}:${d.code}`);
};
const drilldown = (over: Record<string, unknown> = {}) => ({ timeStart: START, timeEnd: END, groupings: [{ groupBy: 'country' }], ...over });

describe('reporting query validation', () => {
  it('takes a drilldown with every field of the contract, unchanged', () => {
    const request: DrilldownRequest = {
      timeStart: START,
      timeEnd: END,
      timeZone: 'America/New_York',
      groupings: [
        { groupBy: 'Third Parties: Traffic Source', whitelistFilters: [ID], blacklistFilters: [] },
        { groupBy: 'country', blacklistFilters: ['D*'] },
      ],
      topLevelFilters: [{ groupBy: 'Third Parties: Traffic Source', whitelistFilters: [ID, null] }],
      columnFilters: { filterColumns: [{ columnName: 'Entrances', filter: '>= 10' }] },
      sorting: { sortingColumns: [{ columnName: 'Revenue', order: 'desc' }] },
      paging: { start: 0, length: 10_000 },
      options: { viewType: 'tree', timeAttribution: 'event', showArchivedAssets: true },
      metrics: ['Entrances', 'roi'],
    };
    expect(JSON.parse(JSON.stringify(parseDrilldownRequest(structuredClone(request))))).toEqual(request);
  });

  it('refuses unknown fields at any depth, naming them', () => {
    expect(
      fields(() =>
        parseDrilldownRequest(
          drilldown({ timezone: 'UTC', groupings: [{ groupBy: 'country', filters: ['DE'] }], options: { viewType: 'flat', attribution: 'event' } }),
        ),
      ),
    ).toEqual(['timezone:unknownField', 'groupings[0].filters:unknownField', 'options.attribution:unknownField']);
  });

  it('names missing and mistyped fields, and enum values it does not know', () => {
    expect(fields(() => parseDrilldownRequest({ timeStart: START, groupings: 'country' }))).toEqual(['timeEnd:required', 'groupings:isArray']);
    expect(fields(() => parseDrilldownRequest(drilldown({ options: { viewType: 'mixed', timeAttribution: 'visit' } })))).toEqual([
      'options.viewType:isIn',
      'options.timeAttribution:isIn',
    ]);
    expect(fields(() => parseDrilldownRequest(drilldown({ sorting: { sortingColumns: [{ columnName: 'Revenue', order: 'up' }] } })))).toEqual([
      'sorting.sortingColumns[0].order:isIn',
    ]);
    expect(fields(() => parseDrilldownRequest(drilldown({ metrics: ['Entrances', 3] })))).toEqual(['metrics:isString']);
    expect(fields(() => parseDrilldownRequest(drilldown({ groupings: [{ groupBy: '' }] })))).toEqual(['groupings[0].groupBy:minLength']);
    expect(fields(() => parseDrilldownRequest([drilldown()]))).toEqual([':isObject']);
  });

  it('takes RFC 3339 times with a zone only, and a window of at most 366 days after the start', () => {
    expect(fields(() => parseDrilldownRequest(drilldown({ timeStart: '2026-11-20T00:00:00', timeEnd: '2026-11-21' })))).toEqual([
      'timeStart:isIso8601',
      'timeEnd:isIso8601',
    ]);
    expect(fields(() => parseDrilldownRequest(drilldown({ timeEnd: START })))).toEqual(['timeEnd:isAfterStart']);
    expect(fields(() => parseDrilldownRequest(drilldown({ timeStart: '2025-01-01T00:00:00Z', timeEnd: '2026-01-02T00:00:01Z' })))).toEqual([
      'timeEnd:maxWindow',
    ]);
    // 366 days exactly (a leap year) is allowed.
    expect(parseDrilldownRequest(drilldown({ timeStart: '2028-01-01T00:00:00Z', timeEnd: '2029-01-01T00:00:00Z' })).timeEnd).toBe('2029-01-01T00:00:00Z');
  });

  it('takes IANA time zones only', () => {
    expect(parseDrilldownRequest(drilldown({ timeZone: 'Australia/Lord_Howe' })).timeZone).toBe('Australia/Lord_Howe');
    expect(fields(() => parseDrilldownRequest(drilldown({ timeZone: 'Mars/Olympus_Mons' })))).toEqual(['timeZone:isTimeZone']);
    expect(fields(() => parseDrilldownRequest(drilldown({ timeZone: '+02:00' })))).toEqual(['timeZone:isTimeZone']);
  });

  it('bounds groupings (1..5), tree levels (< 5), filter lists (1000), filter texts and paging', () => {
    const grouping = { groupBy: 'country' };
    expect(fields(() => parseDrilldownRequest(drilldown({ groupings: [] })))).toEqual(['groupings:arrayMinSize']);
    expect(fields(() => parseDrilldownRequest(drilldown({ groupings: Array(6).fill(grouping) })))).toEqual(['groupings:arrayMaxSize']);
    expect(parseDrilldownRequest(drilldown({ groupings: Array(5).fill(grouping) })).groupings).toHaveLength(5);
    const pin = { groupBy: 'country', whitelistFilters: ['DE'] };
    expect(fields(() => parseDrilldownRequest(drilldown({ topLevelFilters: Array(5).fill(pin) })))).toEqual(['topLevelFilters:arrayMaxSize']);
    expect(fields(() => parseDrilldownRequest(drilldown({ topLevelFilters: [{ groupBy: 'country', whitelistFilters: [] }] })))).toEqual([
      'topLevelFilters[0].whitelistFilters:arrayMinSize',
    ]);
    expect(fields(() => parseDrilldownRequest(drilldown({ topLevelFilters: [{ groupBy: 'country', whitelistFilters: [7] }] })))).toEqual([
      'topLevelFilters[0].whitelistFilters:isStringOrNull',
    ]);
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    expect(parseDrilldownRequest(drilldown({ groupings: [{ groupBy: 'c1', whitelistFilters: values(1000) }] })).groupings[0].whitelistFilters).toHaveLength(
      1000,
    );
    expect(fields(() => parseDrilldownRequest(drilldown({ groupings: [{ groupBy: 'c1', blacklistFilters: values(1001) }] })))).toEqual([
      'groupings[0].blacklistFilters:arrayMaxSize',
    ]);
    expect(fields(() => parseDrilldownRequest(drilldown({ groupings: [{ groupBy: 'c1', whitelistFilters: ['x'.repeat(1025)] }] })))).toEqual([
      'groupings[0].whitelistFilters:maxLength',
    ]);
    expect(fields(() => parseDrilldownRequest(drilldown({ paging: { start: -1, length: 10_001 } })))).toEqual(['paging.start:min', 'paging.length:max']);
    expect(fields(() => parseDrilldownRequest(drilldown({ paging: { length: 0.5 } })))).toEqual(['paging.length:isInt']);
  });

  it('takes metric filters with <, <=, > or >= and a number', () => {
    expect(parseColumnFilter('>= 10')).toEqual({ operator: '>=', value: 10 });
    expect(parseColumnFilter(' <-0.25 ')).toEqual({ operator: '<', value: -0.25 });
    expect(parseColumnFilter('> 3')).toEqual({ operator: '>', value: 3 });
    for (const bad of ['= 10', '10', '>= ten', '>=', '>= 1; drop table hits', '=> 1']) {
      expect(parseColumnFilter(bad)).toBeUndefined();
      expect(fields(() => parseDrilldownRequest(drilldown({ columnFilters: { filterColumns: [{ columnName: 'Entrances', filter: bad }] } })))).toEqual([
        'columnFilters.filterColumns[0].filter:matches',
      ]);
    }
  });

  it('checks raw-event pages: limit 1..1000, a cursor, filters like the groupings', () => {
    const request = { timeStart: START, timeEnd: END, filters: [{ groupBy: 'country', whitelistFilters: ['DE'] }], cursor: 'abc', limit: 1000 };
    expect(parseRawEventsRequest(structuredClone(request))).toEqual(request);
    expect(fields(() => parseRawEventsRequest({ timeStart: START, timeEnd: END, limit: 1001, cursor: '' }))).toEqual(['cursor:minLength', 'limit:max']);
    expect(fields(() => parseRawEventsRequest({ timeStart: START, timeEnd: END, filters: [{ whitelistFilters: ['DE'] }] }))).toEqual([
      'filters[0].groupBy:required',
    ]);
  });

  it('looks a visitor up by visitor and window, or by one hit, never both', () => {
    expect(parseExplorerVisitorRequest({ visitorId: ID, timeStart: START, timeEnd: END })).toEqual({ visitorId: ID, timeStart: START, timeEnd: END });
    expect(parseExplorerVisitorRequest({ hitId: ID })).toEqual({ hitId: ID });
    expect(fields(() => parseExplorerVisitorRequest({ hitId: ID, visitorId: ID }))).toEqual(['hitId:oneOf']);
    expect(fields(() => parseExplorerVisitorRequest({}))).toEqual(['visitorId:required', 'timeStart:required', 'timeEnd:required']);
    expect(fields(() => parseExplorerVisitorRequest({ visitorId: 'short', timeStart: START, timeEnd: END }))).toEqual(['visitorId:isAssetId']);
    expect(fields(() => parseExplorerVisitorRequest({ visitorId: ID, timeStart: END, timeEnd: START }))).toEqual(['timeEnd:isAfterStart']);
    expect(parseExplorerHitRequest({ hitId: ID })).toEqual({ hitId: ID });
    expect(fields(() => parseExplorerHitRequest({ hitId: ID, visitorId: ID }))).toEqual(['visitorId:unknownField']);
  });

  it('checks the postback log filters and paging (length <= 1000)', () => {
    const request = {
      timeStart: START,
      timeEnd: END,
      trafficSourceIds: [ID],
      funnelIds: [ID],
      statuses: ['failed', 'delivered'],
      paging: { start: 5, length: 1000 },
    };
    expect(parsePostbackLogRequest(structuredClone(request))).toEqual(request);
    expect(fields(() => parsePostbackLogRequest({ ...request, statuses: ['queued'], trafficSourceIds: ['x'], paging: { length: 1001 } }))).toEqual([
      'trafficSourceIds:isAssetId',
      'statuses:isIn',
      'paging.length:max',
    ]);
  });

  it('takes an optional traffic source id on the attributes query, and no other parameter', () => {
    expect(parseAttributesQuery({})).toEqual({});
    expect(parseAttributesQuery(undefined)).toEqual({});
    expect(parseAttributesQuery({ idTrafficSource: ID })).toEqual({ idTrafficSource: ID });
    expect(fields(() => parseAttributesQuery({ idTrafficSource: 'nope' }))).toEqual(['idTrafficSource:isAssetId']);
    expect(fields(() => parseAttributesQuery({ idTrafficSource: [ID, ID] }))).toEqual(['idTrafficSource:isString']);
    expect(fields(() => parseAttributesQuery({ source: ID }))).toEqual(['source:unknownField']);
  });
});
