import { postbackParamsOf } from './postback-params';

describe('postbackParamsOf', () => {
  it('reads hit, tx and rev', () => {
    expect(postbackParamsOf({ hit: 'HIT000000001', tx: 'T-1', rev: '2.50' })).toEqual({ hitId: 'HIT000000001', transactionId: 'T-1', revenue: '2.50' });
  });

  it.each([[{ clickid: 'H1', txid: 'T', payout: '1' }], [{ cid: 'H1', transaction_id: 'T', revenue: '1' }], [{ subid: 'H1', TX: 'T', Rev: '1' }]])(
    'takes the aliases, in any case: %j',
    (query) => {
      expect(postbackParamsOf(query)).toEqual({ hitId: 'H1', transactionId: 'T', revenue: '1' });
    },
  );

  it('gives no revenue when absent or empty, and "" for a missing hit or transaction', () => {
    expect(postbackParamsOf({ hit: 'H1', rev: '' })).toEqual({ hitId: 'H1', transactionId: '', revenue: undefined });
    expect(postbackParamsOf({})).toEqual({ hitId: '', transactionId: '', revenue: undefined });
  });

  it('prefers the first source (the query) and the first of repeated values, over a form body', () => {
    expect(postbackParamsOf({ hit: ['H1', 'H2'] }, { hit: 'H3', tx: 'FORM' })).toEqual({ hitId: 'H1', transactionId: 'FORM', revenue: undefined });
  });

  it('prefers `hit` over its aliases when several are given', () => {
    expect(postbackParamsOf({ subid: 'H2', hit: 'H1' }).hitId).toBe('H1');
  });
});
