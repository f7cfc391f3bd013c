import { applyCustomEvent } from './custom-events';
import { aHit } from './testing/hits';

const time = '2026-01-10T12:00:00Z';

describe('custom events', () => {
  it('adds 1 by default', () => expect(applyCustomEvent(aHit(), { hitId: 'HIT000000001', eventNumber: 3, time }).customEvents).toEqual({ '3': 1 }));
  it('adds the count to the count the hit has', () =>
    expect(applyCustomEvent(aHit({ customEvents: { '3': 2, '10': 1 } }), { hitId: 'HIT000000001', eventNumber: 3, count: 5, time }).customEvents).toEqual({
      '3': 7,
      '10': 1,
    }));
  it.each([0, 11, 1.5])('refuses event number %s', (eventNumber) =>
    expect(() => applyCustomEvent(aHit(), { hitId: 'HIT000000001', eventNumber, time })).toThrow(RangeError),
  );
  it.each([0, -1, 2.5])('refuses count %s', (count) =>
    expect(() => applyCustomEvent(aHit(), { hitId: 'HIT000000001', eventNumber: 1, count, time })).toThrow(RangeError),
  );
});
