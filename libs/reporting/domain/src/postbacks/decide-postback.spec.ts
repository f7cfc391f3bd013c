import { POSTBACK_CALLS, PostbackCalls, TrafficSourcePostbackSettings, decidePostback } from './decide-postback';

const POSTBACK_TYPES = ['none', 'postbackUrl', 'pixelUrl', 'javascript'] as const;
const source = (overrides: Partial<TrafficSourcePostbackSettings> = {}): TrafficSourcePostbackSettings => ({
  idTrafficSource: 'TSOURCE00001',
  postback: { postbackType: 'postbackUrl', postbackCode: 'https://ts.example/pb?p={payout}' },
  disableZeroRevenuePostbacks: false,
  outgoingPostbackProbability: 100,
  outgoingRevenueModifier: 100,
  ...overrides,
});
const flags = (postbackCalls: PostbackCalls, disablePostbacks = false, forcePostbacks = false) => ({ postbackCalls, disablePostbacks, forcePostbacks });

describe('postback decision table', () => {
  describe('given / then', () => {
    it.each([
      // postbackCalls, disable, force, type, alreadyCalled, zeroRevenueOff, payout, probability, draw -> result
      ['none', false, false, 'postbackUrl', false, false, '5', 100, 0, { send: false, reason: 'postbackCallsNone' }],
      ['none', false, true, 'postbackUrl', false, false, '5', 100, 0, { send: false, reason: 'postbackCallsNone' }],
      ['all', true, true, 'postbackUrl', false, false, '5', 100, 0, { send: false, reason: 'disabled' }],
      ['onlyOnce', false, false, 'postbackUrl', true, false, '5', 100, 0, { send: false, reason: 'alreadyCalled' }],
      ['onlyOnce', false, true, 'postbackUrl', true, false, '5', 100, 0, { send: false, reason: 'alreadyCalled' }],
      ['onlyOnce', false, false, 'postbackUrl', false, false, '5', 100, 0, { send: true, action: 'call', payout: '5' }],
      ['all', false, false, 'postbackUrl', true, false, '5', 100, 0, { send: true, action: 'call' }],
      ['all', false, false, 'none', false, false, '5', 100, 0, { send: false, reason: 'noPostback' }],
      ['all', false, true, 'none', false, false, '5', 100, 0, { send: false, reason: 'noPostback' }],
      ['all', false, false, 'pixelUrl', false, false, '5', 100, 0, { send: true, action: 'record', postbackType: 'pixelUrl' }],
      ['all', false, false, 'javascript', false, false, '5', 100, 0, { send: true, action: 'record', postbackType: 'javascript' }],
      ['all', false, false, 'postbackUrl', false, true, '0', 100, 0, { send: false, reason: 'zeroRevenue' }],
      ['all', false, true, 'postbackUrl', false, true, '0', 100, 0, { send: true, payout: '0' }],
      ['all', false, false, 'postbackUrl', false, false, '0', 100, 0, { send: true, payout: '0' }],
      ['all', false, false, 'postbackUrl', false, false, '5', 30, 29.99, { send: true }],
      ['all', false, false, 'postbackUrl', false, false, '5', 30, 30, { send: false, reason: 'sampledOut' }],
      ['all', false, false, 'postbackUrl', false, false, '5', 0, 0, { send: false, reason: 'sampledOut' }],
      ['all', false, true, 'postbackUrl', false, false, '5', 0, 0, { send: true }],
    ] as const)(
      'postbackCalls %s, disable %s, force %s, type %s, called %s, zero-revenue off %s, payout %s, probability %s, draw %s',
      (calls, disable, force, postbackType, alreadyCalled, disableZeroRevenuePostbacks, payout, outgoingPostbackProbability, draw, expected) => {
        const decision = decidePostback({
          flags: flags(calls, disable, force),
          source: source({ postback: { postbackType, postbackCode: 'x' }, disableZeroRevenuePostbacks, outgoingPostbackProbability }),
          alreadyCalled,
          payout,
          draw,
        });
        expect(decision).toMatchObject(expected);
      },
    );
  });

  it('sends nothing for a hit without a traffic source', () =>
    expect(decidePostback({ flags: flags('all', false, true), source: undefined, alreadyCalled: false, payout: '1', draw: 0 })).toEqual({
      send: false,
      reason: 'noPostback',
    }));

  it.each([
    ['10', 100, '10'],
    ['10', 250, '25'],
    ['10', 0, '0'],
    ['1.234567', 50, '0.617284'],
  ])('sends payout %s with outgoingRevenueModifier %s %% as %s', (payout, outgoingRevenueModifier, sent) =>
    expect(decidePostback({ flags: flags('all'), source: source({ outgoingRevenueModifier }), alreadyCalled: false, payout, draw: 0 })).toMatchObject({
      send: true,
      payout: sent,
    }),
  );

  it('judges zero revenue on the conversion payout, not on the modified one', () =>
    expect(
      decidePostback({
        flags: flags('all'),
        source: source({ disableZeroRevenuePostbacks: true, outgoingRevenueModifier: 0 }),
        alreadyCalled: false,
        payout: '3',
        draw: 0,
      }),
    ).toMatchObject({ send: true, payout: '0' }));

  it('decides every combination of the request flags and the source settings by the documented rules', () => {
    let combinations = 0;
    for (const postbackCalls of POSTBACK_CALLS)
      for (const disablePostbacks of [false, true])
        for (const forcePostbacks of [false, true])
          for (const postbackType of POSTBACK_TYPES)
            for (const alreadyCalled of [false, true])
              for (const disableZeroRevenuePostbacks of [false, true])
                for (const payout of ['0', '4.2'])
                  for (const [outgoingPostbackProbability, draw] of [
                    [100, 99.999],
                    [50, 49.5],
                    [50, 50],
                    [0, 0],
                  ]) {
                    combinations++;
                    const decision = decidePostback({
                      flags: { postbackCalls, disablePostbacks, forcePostbacks },
                      source: source({
                        postback: { postbackType, postbackCode: 'x' },
                        disableZeroRevenuePostbacks,
                        outgoingPostbackProbability,
                        outgoingRevenueModifier: 200,
                      }),
                      alreadyCalled,
                      payout,
                      draw,
                    });
                    const requested = !disablePostbacks && (postbackCalls === 'all' || (postbackCalls === 'onlyOnce' && !alreadyCalled));
                    const sourcePasses = forcePostbacks || (!(disableZeroRevenuePostbacks && payout === '0') && draw < outgoingPostbackProbability);
                    const expected = requested && postbackType !== 'none' && sourcePasses;
                    expect(decision.send).toBe(expected);
                    if (decision.send) {
                      expect(decision.action).toBe(postbackType === 'postbackUrl' ? 'call' : 'record');
                      expect(decision.payout).toBe(payout === '0' ? '0' : '8.4');
                    }
                  }
    expect(combinations).toBe(3 * 2 * 2 * 4 * 2 * 2 * 2 * 4);
  });
});
