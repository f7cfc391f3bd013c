import { generateAssetId } from '@funnel/contracts';
import { DocumentIds, assetDocumentId } from './asset-documents';

describe('DocumentIds', () => {
  it("answers each asset's document id, in the order asked, whatever it kept before (and past what it keeps)", () => {
    const documentIds = new DocumentIds();
    const ids = Array.from({ length: 60_000 }, () => generateAssetId());
    for (const [kind, accountId] of [
      ['page', 'ACCOUNT00001'],
      ['page', 'ACCOUNT00002'],
      ['visitortag', 'ACCOUNT00001'],
    ]) {
      for (let at = 0; at < ids.length; at += 1000) {
        const some = ids.slice(at, at + 1000).reverse();
        // (Compared as text: 180 comparisons of 1,000 elements each take jest seconds.)
        expect(documentIds.of(kind, accountId, some).join()).toBe(some.map((id) => assetDocumentId(kind, accountId, id)).join());
      }
    }
    expect(documentIds.of('page', 'ACCOUNT00001', [ids[0], ids[0], ids[1]])).toEqual([ids[0], ids[0], ids[1]].map((id) => `page:ACCOUNT00001:${id}`));
    expect(documentIds.of('page', 'ACCOUNT00001', [])).toEqual([]);
  });
});
