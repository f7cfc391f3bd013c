import { MAX_BULK_IDS, ServiceError, generateAssetId } from '@funnel/contracts';
import { encodeCursor, idsParam, ifMatchRevision, intParam, pageParams } from './query-params';

const fieldOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceError && error.status === 400) return error.details[0]?.field;
    throw error;
  }
  return undefined;
};

describe('paging and If-Match parameters', () => {
  it('reads limit within its bounds and the cursor a previous page gave', () => {
    const id = generateAssetId();
    expect(pageParams({})).toEqual({ limit: undefined });
    expect(pageParams({ limit: '1000', cursor: encodeCursor(id) })).toEqual({ limit: 1000, after: id });
    expect(pageParams({ cursor: '' })).toEqual({ limit: undefined });
    for (const limit of ['0', '1001', '-1', '2.5', 'ten', '']) expect(fieldOf(() => pageParams({ limit }))).toBe('limit');
    for (const cursor of ['!!', Buffer.from('not an id').toString('base64url'), `${encodeCursor(id)}=`])
      expect(fieldOf(() => pageParams({ cursor }))).toBe('cursor');
  });

  it('bounds integer parameters', () => {
    expect(intParam({ n: '7' }, 'n', 1, 10)).toBe(7);
    expect(intParam({}, 'n', 1, 10)).toBeUndefined();
    expect(fieldOf(() => intParam({ n: '11' }, 'n', 1, 10))).toBe('n');
  });

  it('reads If-Match as a weak or strong ETag of a revision; * or none means no condition', () => {
    expect(ifMatchRevision({ 'if-match': 'W/"12"' })).toBe(12);
    expect(ifMatchRevision({ 'if-match': ' "0" ' })).toBe(0);
    expect(ifMatchRevision({ 'if-match': '*' })).toBeUndefined();
    expect(ifMatchRevision(undefined)).toBeUndefined();
    for (const value of ['12', 'W/12', '"a"', 'W/"1", W/"2"']) expect(fieldOf(() => ifMatchRevision({ 'if-match': value }))).toBe('If-Match');
  });
});

describe('multi-id parameters', () => {
  const [a, b, c] = [generateAssetId(), generateAssetId(), generateAssetId()];
  const refusal = (run: () => unknown): string | undefined => {
    try {
      run();
    } catch (error) {
      if (error instanceof ServiceError && error.status === 400) return `${error.code}: ${error.message}`;
      throw error;
    }
    return undefined;
  };

  it('reads ids separated by commas and/or repeated, each once in the order first given, spaces and empty entries aside', () => {
    expect(idsParam({ ids: `${a},${b},${c}` }, 'ids')).toEqual([a, b, c]);
    expect(idsParam({ ids: `${b},${a},${b},${a}` }, 'ids')).toEqual([b, a]);
    expect(idsParam({ ids: [`${c},${a}`, b, a] }, 'ids')).toEqual([c, a, b]);
    expect(idsParam({ ids: ` ${a} ,,${b}\t, ${a},` }, 'ids')).toEqual([a, b]);
    expect(idsParam({ ids: a }, 'ids')).toEqual([a]);
    expect(idsParam({ ids: '' }, 'ids')).toEqual([]);
    expect(idsParam({ ids: [' , ', ''] }, 'ids')).toEqual([]);
  });

  it('refuses a missing parameter, an invalid id (named after trimming) and more than the bound, the bound first', () => {
    expect(fieldOf(() => idsParam({}, 'ids'))).toBe('ids');
    expect(refusal(() => idsParam({ ids: `${a}, bad id ,${b}` }, 'ids'))).toMatch(/ids: bad id is not a valid id/);
    expect(refusal(() => idsParam({ ids: [`${a},${b}`, `${c}x`] }, 'ids'))).toMatch(new RegExp(`ids: ${c}x is not a valid id`));
    expect(refusal(() => idsParam({ ids: `${a},0123456789é1` }, 'ids'))).toMatch(/0123456789é1 is not a valid id/);
    const many = Array.from({ length: MAX_BULK_IDS + 1 }, () => generateAssetId());
    expect(idsParam({ ids: many.slice(1).join(',') }, 'ids')).toHaveLength(MAX_BULK_IDS);
    expect(refusal(() => idsParam({ ids: many.join(',') }, 'ids'))).toMatch(/may list at most/);
    expect(refusal(() => idsParam({ ids: [...many.slice(1), 'bad'].join(',') }, 'ids'))).toMatch(/may list at most/);
  });
});
