import { buildPostbackUrl, maskPostbackUrl, postbackSlots } from './postback-url';

const values = {
  payout: '12.5',
  transactionId: 'tx 1&2',
  hitId: 'HIT000000001',
  trackingFields: { external: 'click/42?', c3: 'ünï' },
  trackingFieldSlots: { external: { name: 'clickid' }, c3: { name: 'zone' } },
};

describe('postback URL', () => {
  it('replaces payout, txid, hitid and tracking-field tokens with URL-encoded values', () =>
    expect(buildPostbackUrl('https://ts.example/pb?cid={external}&p={payout}&tx={txid}&h={hitid}&z={trackingField.zone}&c={c3}', values)).toBe(
      'https://ts.example/pb?cid=click%2F42%3F&p=12.5&tx=tx%201%262&h=HIT000000001&z=%C3%BCn%C3%AF&c=%C3%BCn%C3%AF',
    ));

  it('builds the same postback for each hit with its own values, and with each source its own field names', () => {
    const code = 'https://ts.example/pb?z={trackingField.zone}&p={payout}';
    expect(buildPostbackUrl(code, values)).toBe('https://ts.example/pb?z=%C3%BCn%C3%AF&p=12.5');
    expect(buildPostbackUrl(code, { ...values, payout: '3', trackingFields: { c3: 'z2' } })).toBe('https://ts.example/pb?z=z2&p=3');
    expect(buildPostbackUrl(code, { ...values, trackingFieldSlots: { external: { name: 'zone' } } })).toBe('https://ts.example/pb?z=click%2F42%3F&p=12.5');
    expect(buildPostbackUrl(code, { ...values, trackingFieldSlots: undefined })).toBe('https://ts.example/pb?z={trackingField.zone}&p=12.5');
  });

  it("names the tracking-field slots a postback uses, each once, by slot token or by the source's field name", () => {
    expect(
      postbackSlots(
        'https://ts.example/?a={external}&b={trackingField.zone}&c={c3}&d={external}&p={payout}&x={c21}&y={trackingField.nope}',
        values.trackingFieldSlots,
      ),
    ).toEqual(['external', 'c3']);
    expect(postbackSlots('https://ts.example/?p={payout}&tx={txid}')).toEqual([]);
    expect(postbackSlots('https://ts.example/?z={trackingField.zone}&k={campaign}')).toEqual(['campaign']);
  });

  it('gives "" for a tracking field the hit has no value for, and keeps unknown tokens', () =>
    expect(buildPostbackUrl('https://ts.example/?a={campaign}&b={c20}&c={unknown}&d={trackingField.nope}', values)).toBe(
      'https://ts.example/?a=&b=&c={unknown}&d={trackingField.nope}',
    ));

  it.each([
    ['https://ts.example/pb?token=abc&cid=1', 'https://ts.example/pb?token=********&cid=1'],
    ['https://ts.example/pb?cid=1&api_key=abc&Signature=zz#frag', 'https://ts.example/pb?cid=1&api_key=********&Signature=********#frag'],
    ['https://ts.example/pb?password=p&auth=a&secret=s&x=1', 'https://ts.example/pb?password=********&auth=********&secret=********&x=1'],
    ['https://user:hunter2@ts.example/pb?x=1', 'https://user:********@ts.example/pb?x=1'],
    ['https://user@ts.example/pb?x=1', 'https://user@ts.example/pb?x=1'],
    ['https://ts.example/pb?cid=1&p=2', 'https://ts.example/pb?cid=1&p=2'],
  ])('masks %s as %s', (url, masked) => expect(maskPostbackUrl(url)).toBe(masked));
});
