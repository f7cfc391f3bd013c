import type { FieldProblem, KindRules } from './kind-rules';
import { isHttpUrlWithTokens } from './url-rules';

/** Pages: an absolute base URL ({tokens} in its query only); offer parameters on offers only, naming a live offer source. */
export const pageRules: KindRules = {
  check(record) {
    const problems: FieldProblem[] = [];
    if (!isHttpUrlWithTokens(record.baseURL as string, 'query')) {
      problems.push({ field: 'baseURL', code: 'isUrl', message: 'baseURL must be an absolute http(s) URL; {tokens} may appear in its query only' });
    }
    if (record.pageType === 'lander' && record.offerParams !== undefined) {
      problems.push({ field: 'offerParams', code: 'notAllowed', message: 'offerParams is for offers only; a lander has none' });
    }
    return problems;
  },

  references(record) {
    const offerParams = record.offerParams as { idOfferSource?: string } | undefined;
    return offerParams?.idOfferSource ? [{ field: 'offerParams.idOfferSource', kind: 'offersource', id: offerParams.idOfferSource }] : [];
  },
};
