import { isAbsoluteHttpUrl } from './http-rules';
import type { KindRules } from './kind-rules';

/** Short links: the destination is an absolute http(s) URL. The slug's uniqueness is the pipeline's (a unique field). */
export const shortLinkRules: KindRules = {
  check(record) {
    const url = String(record.destinationUrl ?? '');
    return isAbsoluteHttpUrl(url)
      ? []
      : [{ field: 'destinationUrl', code: 'isUrl', message: 'destinationUrl must be an absolute http(s) URL without credentials' }];
  },
};
