import { METRICS, type MetricDefinition } from '../catalogue/metrics';
import { metricCell, type BaseRow } from './values';

const byLabel = (label: string): MetricDefinition => {
  const metric = METRICS.find((m) => m.label === label);
  if (!metric) throw new Error(`no metric ${label}`);
  return metric;
};

const row: BaseRow = {
  entrances: 200,
  uniqueEntrances: 160,
  nodeViews: 500,
  landerViews: 150,
  landerClicks: 60,
  offerViews: 80,
  offerClicks: 20,
  conversions: 8,
  revenue: '40.000000',
  cost: '25.500000',
  customEvent1: 3,
  customEvent10: 7,
};

describe('metric formulas', () => {
  const cases: [string, unknown, string][] = [
    ['Entrances', 200, '200'],
    ['Unique Entrances', 160, '160'],
    ['Node Views', 500, '500'],
    ['Lander Views', 150, '150'],
    ['Lander Clicks', 60, '60'],
    ['Offer Views', 80, '80'],
    ['Offer Clicks', 20, '20'],
    ['Conv.', 8, '8'],
    ['Revenue', '40.000000', '40.00'],
    ['Cost', '25.500000', '25.50'],
    ['P/L', '14.500000', '14.50'],
    ['ROI', 14.5 / 25.5, '56.86%'],
    ['Lander CTR', 0.4, '40.00%'],
    ['Offer CTR', 0.25, '25.00%'],
    ['EPa', '5.000000', '5.00'],
    ['CPa', '3.187500', '3.19'],
    ['CVRe', 0.04, '4.00%'],
    ['EPe', '0.200000', '0.20'],
    ['CPe', '0.127500', '0.13'],
    ['CVRov', 0.1, '10.00%'],
    ['EPov', '0.500000', '0.50'],
    ['CPov', '0.318750', '0.32'],
    ['CVRlv', 8 / 150, '5.33%'],
    ['EPlv', '0.266667', '0.27'],
    ['CPlv', '0.170000', '0.17'],
    ['CVRnv', 0.016, '1.60%'],
    ['EPnv', '0.080000', '0.08'],
    ['CPnv', '0.051000', '0.05'],
    ['Unique CVRe', 0.05, '5.00%'],
    ['Unique EPe', '0.250000', '0.25'],
    ['Unique CPe', '0.159375', '0.16'],
    ['Custom Event 1', 3, '3'],
    ['Custom Event 2', 0, '0'],
    ['Custom Event 10', 7, '7'],
  ];

  it.each(cases)('%s', (label, raw, formatted) => {
    const cell = metricCell(byLabel(label), row);
    if (typeof raw === 'number' && !Number.isInteger(raw)) expect(cell.raw).toBeCloseTo(raw, 12);
    else expect(cell.raw).toEqual(raw);
    expect(cell.formatted).toBe(formatted);
  });

  it('covers every metric of the catalogue', () => {
    const tested = new Set(cases.map(([label]) => label));
    const untested = METRICS.filter((m) => !tested.has(m.label) && !/^Custom Event [3-9]$/.test(m.label));
    expect(untested.map((m) => m.label)).toEqual([]);
  });

  it('a division by zero is N/A (raw null); zero over something is 0', () => {
    const empty: BaseRow = {};
    for (const label of ['ROI', 'Lander CTR', 'Offer CTR', 'EPa', 'CPa', 'CVRe', 'EPe', 'CPe', 'CVRov', 'CVRlv', 'CVRnv', 'Unique CVRe']) {
      expect(metricCell(byLabel(label), empty)).toEqual({ raw: null, formatted: 'N/A' });
    }
    expect(metricCell(byLabel('Revenue'), empty)).toEqual({ raw: '0.000000', formatted: '0.00' });
    expect(metricCell(byLabel('CVRe'), { entrances: 3 })).toEqual({ raw: 0, formatted: '0.00%' });
  });

  it('money is exact: sums of many micro amounts, negative P/L and ROI, rounding half away from zero', () => {
    const loss: BaseRow = { revenue: '0.000001', cost: '1000000000.000003', conversions: 2, entrances: 3 };
    expect(metricCell(byLabel('P/L'), loss)).toEqual({ raw: '-1000000000.000002', formatted: '-1000000000.00' });
    expect(metricCell(byLabel('EPa'), { revenue: '0.000001', conversions: 2 })).toEqual({ raw: '0.000001', formatted: '0.00' });
    expect(metricCell(byLabel('CPe'), { cost: '0.01', entrances: 3 })).toEqual({ raw: '0.003333', formatted: '0.00' });
    expect(metricCell(byLabel('ROI'), { revenue: '5', cost: '10' })).toEqual({ raw: -0.5, formatted: '-50.00%' });
    expect(metricCell(byLabel('Cost'), { cost: '0.005' })).toEqual({ raw: '0.005000', formatted: '0.01' });
  });
});
