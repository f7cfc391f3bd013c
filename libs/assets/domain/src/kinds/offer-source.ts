import { OFFER_QUERY_PARAMS_MAX, OFFER_QUERY_PARAM_KEY_MAX, OFFER_QUERY_PARAM_VALUE_MAX } from '@funnel/contracts';
import type { FieldProblem, KindRules } from './kind-rules';
import { isBareHostName } from './url-rules';

/** Offer sources: query parameters appended to offer URLs, and the UMR domain override. */
export const offerSourceRules: KindRules = {
  check(record) {
    const problems: FieldProblem[] = [];
    const params = Object.entries((record.queryParams ?? {}) as Record<string, unknown>);
    if (params.length > OFFER_QUERY_PARAMS_MAX) {
      problems.push({ field: 'queryParams', code: 'maxEntries', message: `queryParams may hold at most ${OFFER_QUERY_PARAMS_MAX} entries` });
    }
    for (const [key, value] of params.slice(0, OFFER_QUERY_PARAMS_MAX + 1)) {
      const shown = key.length > OFFER_QUERY_PARAM_KEY_MAX ? `${key.slice(0, OFFER_QUERY_PARAM_KEY_MAX)}…` : key;
      if (key.length < 1 || key.length > OFFER_QUERY_PARAM_KEY_MAX) {
        problems.push({ field: `queryParams.${shown}`, code: 'keyLength', message: `queryParams names must be 1 to ${OFFER_QUERY_PARAM_KEY_MAX} characters` });
      }
      if (typeof value !== 'string' || value.length > OFFER_QUERY_PARAM_VALUE_MAX) {
        problems.push({
          field: `queryParams.${shown}`,
          code: 'isString',
          message: `queryParams.${shown} must be a string of at most ${OFFER_QUERY_PARAM_VALUE_MAX} characters`,
        });
      }
    }
    const domain = record.umrDomainOverride as string;
    if (domain !== '' && !isBareHostName(domain)) {
      problems.push({ field: 'umrDomainOverride', code: 'isHostName', message: 'umrDomainOverride must be a bare host name such as track.example.com, or ""' });
    }
    return problems;
  },
};
