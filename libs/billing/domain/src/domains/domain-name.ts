import { domainToASCII } from 'node:url';
import { parse } from 'tldts';
import { BillingErrorCodes, ServiceError } from '@funnel/contracts';

/** A custom domain as the service keeps it: lower-case ASCII (IDNA punycode), no trailing dot. */
export interface DomainName {
  domain: string;
  /** The labels left of the registrable domain ('' for the registrable domain itself). */
  subdomain: string;
  /** The registrable domain: one label under its public suffix (`example.co.uk`). */
  rootDomain: string;
}

export const MAX_DOMAIN_LENGTH = 253;
export const MAX_LABEL_LENGTH = 63;

/** Letters, digits and inner hyphens (the LDH rule of hostnames); punycode labels (`xn--`) are of this form. */
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

function invalid(input: string, why: string): ServiceError {
  const shown = input.length > 80 ? `${input.slice(0, 80)}…` : input;
  const message = `${JSON.stringify(shown)} is not a usable custom domain: ${why}`;
  return ServiceError.invalidField('domain', 'isCustomDomain', message, BillingErrorCodes.INVALID_DOMAIN);
}

/** Lower-case names, each a registrable domain or a subdomain of one, that are the service's own. */
export function parseReservedDomains(list: readonly string[]): string[] {
  return list.map((entry) => entry.trim().toLowerCase().replace(/\.$/, '')).filter((entry) => entry !== '');
}

/** The service's own domains: the reserved list and the registrable domain of the edge's CNAME target. */
export function serviceDomains(reserved: readonly string[], edgeCnameTarget: string): string[] {
  const target = parseReservedDomains([edgeCnameTarget])[0];
  const own = target ? (parse(target, { allowPrivateDomains: false }).domain ?? target) : undefined;
  return [...new Set([...parseReservedDomains(reserved), ...(own ? [own] : [])])];
}

/**
 * Normalises and validates a custom domain: surrounding spaces trimmed, lower-cased, one trailing
 * dot removed, IDNA (UTS #46) to punycode; then it must be a hostname of LDH labels of 1..63
 * characters, at most 253 in all, with a registrable domain under an ICANN public suffix (tldts).
 * IP addresses, bare public suffixes (`co.uk`), wildcards, unknown suffixes (`localhost`, `.test`)
 * and the service's own domains (`reserved`, and their subdomains) are refused with 400 INVALID_DOMAIN.
 */
export function normaliseDomain(input: unknown, reserved: readonly string[] = []): DomainName {
  if (typeof input !== 'string') throw invalid(String(input), 'it must be a string');
  const trimmed = input.trim();
  if (trimmed === '') throw invalid(input, 'it is empty');
  if (/[\s/:@?#[\]\\]/.test(trimmed)) throw invalid(input, 'give the host name alone, without scheme, port, path or spaces');
  if (trimmed.includes('*')) throw invalid(input, 'wildcards are not supported');
  const withoutDot = trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
  const ascii = domainToASCII(withoutDot);
  if (ascii === '') throw invalid(input, 'it is not a valid internationalised domain name');
  if (ascii.length > MAX_DOMAIN_LENGTH) throw invalid(input, `it is longer than ${MAX_DOMAIN_LENGTH} characters`);
  const labels = ascii.split('.');
  for (const label of labels) {
    if (label.length === 0) throw invalid(input, 'it has an empty label');
    if (label.length > MAX_LABEL_LENGTH) throw invalid(input, `a label is longer than ${MAX_LABEL_LENGTH} characters`);
    if (!LDH_LABEL.test(label)) throw invalid(input, `the label ${JSON.stringify(label)} may hold only letters, digits and inner hyphens`);
  }
  const parsed = parse(ascii, { allowPrivateDomains: false });
  if (parsed.isIp || /^[0-9]+$/.test(labels[labels.length - 1])) throw invalid(input, 'IP addresses are not domains');
  if (!parsed.isIcann || parsed.publicSuffix === null) throw invalid(input, 'it is not under a known public suffix');
  if (parsed.domain === null) throw invalid(input, `${ascii} is a public suffix, not a registrable domain`);
  if (parsed.hostname !== ascii) throw invalid(input, 'it is not a plain host name');
  if (reserved.some((own) => ascii === own || ascii.endsWith(`.${own}`))) throw invalid(input, 'it is a domain of the service itself');
  return { domain: ascii, subdomain: parsed.subdomain ?? '', rootDomain: parsed.domain };
}
