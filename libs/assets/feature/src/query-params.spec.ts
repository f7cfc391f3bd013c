import { ServiceError, generateAssetId } from '@funnel/contracts';
import { encodeCursor, ifMatchRevision, intParam, pageParams } from './query-params';

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
