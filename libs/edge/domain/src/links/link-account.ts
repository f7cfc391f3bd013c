// Whose link a request is: the account of the tracking domain it reached.
//   custom domain of an account:  https://track.example.com/fts/<token>            (the account is the domain's)
//   the default domain:           https://edge.example.net/a/<accountId>/fts/<token> (the account is in the path)
import { isSessionKeyPart } from '../sessions/session-keys';
import { normaliseHost } from '../snapshot/domain-directory';

export interface LinkAccountInput {
  /** The request's Host (with its port, if any). */
  host: string | undefined;
  /** `<accountId>` of a `/a/<accountId>/...` path; undefined for the short form. */
  accountInPath: string | undefined;
  /** EDGE_DEFAULT_DOMAIN as normaliseHost leaves it (lower case, no port), when configured. */
  defaultDomain: string | undefined;
  /** The account owning a custom domain (the snapshot's), or undefined. */
  accountOfDomain(host: string): string | undefined;
}

export type LinkAccount = { ok: true; accountId: string } | { ok: false; message: string };

/**
 * The account of a visitor link. A custom domain serves its own account's links in the short form
 * only; the default domain serves every account's links in the `/a/<accountId>/` form only (an
 * account id is 1..64 letters, digits, `_` and `-`). Anything else is nobody's link.
 */
export function linkAccountOf(input: LinkAccountInput): LinkAccount {
  const domain = normaliseHost(input.host ?? '');
  const owner = domain === '' ? undefined : input.accountOfDomain(domain);
  if (owner !== undefined) {
    return input.accountInPath === undefined ? { ok: true, accountId: owner } : { ok: false, message: 'a custom domain serves its links without /a/<account>' };
  }
  if (input.defaultDomain === undefined || domain !== input.defaultDomain) return { ok: false, message: 'this host is not a tracking domain of this service' };
  if (input.accountInPath === undefined) return { ok: false, message: 'links on the default domain name their account: /a/<accountId>/...' };
  if (!isSessionKeyPart(input.accountInPath)) return { ok: false, message: 'the account in the link is malformed' };
  return { ok: true, accountId: input.accountInPath };
}
