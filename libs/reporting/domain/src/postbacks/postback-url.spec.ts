import { buildPostbackUrl, maskPostbackUrl } from './postback-url';

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
