import * as contracts from '@funnel/contracts';
import { isHeaderName, isHeaderValue } from '@funnel/platform';
import { SECRET_PLACEHOLDER } from '../../secret-fields';
import { isHttpUrlWithTokens } from '../url-rules';
import type { FieldChecks } from './field-checks';
import { plural } from './funnel-problems';
import * as references from './funnel-references';
import * as tables from './funnel-types';
import type { FunnelNodeType } from './funnel-types';

// Bound once: compiled imports read another module's exports through getters (here through the
// re-exports of @funnel/contracts), which every node of a large funnel would otherwise pay for.
const { BASIC_AUTH_USER, DESTINATION_OVERRIDE_FIELDS, TOKEN_KEY } = contracts;
const { NODE_REFERENCE_FIELDS } = references;
const { FUNNEL_PROBLEM_CODES: CODES, FUNNEL_LIMITS: L, ROTATOR_TYPES } = tables;

/**
 * The params object of a node (already known to be an object), by the node's type: the ids it names
 * are asset ids (whether they exist is the reference check's job), and each field has its shape.
 */
export function checkNodeParams(check: FieldChecks, type: FunnelNodeType, at: string, params: Record<string, unknown>): void {
  for (const { key, list } of NODE_REFERENCE_FIELDS[type]) {
    const field = `${at}.${key}`;
    if (!list) {
      check.assetId(field, params[key]);
      continue;
    }
    const ids = params[key];
    if (!check.list(field, ids, 1, L.maxTagsPerNode)) continue;
    const seen = new Set<unknown>();
    ids.forEach((id, k) => {
      if (!check.assetId(`${field}[${k}]`, id)) return;
      if (seen.has(id)) check.add(`${field}[${k}]`, CODES.DUPLICATE_ID, `${id} is already in the list`);
      seen.add(id);
    });
  }
  switch (type) {
    case 'root':
    case 'rotator':
      check.oneOf(`${at}.rotatorType`, params.rotatorType, ROTATOR_TYPES);
      return;
    case 'landerGroup':
    case 'offerGroup':
      return checkPageGroupParams(check, at, params);
    case 'externalUrl': {
      const url = params.url;
      if (check.text(`${at}.url`, url, 1, L.maxUrlLength) && !isHttpUrlWithTokens(url, 'query')) {
        check.add(`${at}.url`, CODES.INVALID_URL, 'must be an absolute http(s) URL; {tokens} may appear in its query only');
      }
      return;
    }
    case 'middleware':
      if (params.destinationOverrides !== undefined && check.object(`${at}.destinationOverrides`, params.destinationOverrides)) {
        checkDestinationOverrides(check, `${at}.destinationOverrides`, params.destinationOverrides);
      }
      return;
    default:
      return;
  }
}

function checkPageGroupParams(check: FieldChecks, at: string, params: Record<string, unknown>): void {
  if (params.accumulateUrlParams !== undefined) check.boolean(`${at}.accumulateUrlParams`, params.accumulateUrlParams);
  const tokens = params.additionalTokens;
  if (tokens === undefined || !check.list(`${at}.additionalTokens`, tokens, 0, L.maxAdditionalTokens)) return;
  const keys = new Set<string>();
  tokens.forEach((token, k) => {
    const tokenAt = `${at}.additionalTokens[${k}]`;
    if (!check.object(tokenAt, token)) return;
    if (check.string(`${tokenAt}.key`, token.key)) {
      if (!TOKEN_KEY.test(token.key)) check.add(`${tokenAt}.key`, CODES.OUT_OF_RANGE, 'must be 1 to 64 letters, digits, underscores, dots or hyphens');
      else if (keys.has(token.key)) check.add(`${tokenAt}.key`, CODES.DUPLICATE_ID, `${token.key} is the key of an earlier token`);
      keys.add(token.key);
    }
    check.text(`${tokenAt}.value`, token.value, 0, L.maxTokenValueLength);
  });
}

/** A write-only secret as a client may send it: the value, the placeholder (keep), "" or null (remove). */
function checkSecret(check: FieldChecks, field: string, value: unknown, min: number, max: number): void {
  if (value === undefined || value === null || value === '' || value === SECRET_PLACEHOLDER) return;
  check.text(field, value, min, max);
}

function checkDestinationOverrides(check: FieldChecks, at: string, overrides: Record<string, unknown>): void {
  for (const key of Object.keys(overrides)) {
    if (!(DESTINATION_OVERRIDE_FIELDS as readonly string[]).includes(key))
      check.add(`${at}.${key}`, CODES.NOT_ALLOWED, `is not overridable; only ${DESTINATION_OVERRIDE_FIELDS.join(', ')} are`);
  }
  const headers = overrides.headers;
  if (headers !== undefined && check.object(`${at}.headers`, headers)) {
    const names = Object.keys(headers);
    if (names.length > L.maxOverrideHeaders) {
      check.add(`${at}.headers`, CODES.OUT_OF_RANGE, `must hold at most ${plural(L.maxOverrideHeaders, 'header')}, got ${names.length}`);
    }
    for (const name of names.slice(0, L.maxOverrideHeaders)) {
      if (!isHeaderName(name)) {
        check.add(`${at}.headers`, CODES.NOT_ALLOWED_VALUE, 'holds a name that is not a valid HTTP header name');
        continue;
      }
      const value = headers[name];
      if (check.text(`${at}.headers.${name}`, value, 0, L.maxHeaderValueLength) && !isHeaderValue(value)) {
        check.add(`${at}.headers.${name}`, CODES.NOT_ALLOWED_VALUE, 'must not hold line breaks or control characters');
      }
    }
  }
  const basicAuth = overrides.basicAuth;
  if (basicAuth !== undefined && basicAuth !== null && check.object(`${at}.basicAuth`, basicAuth)) {
    if (check.text(`${at}.basicAuth.username`, basicAuth.username, 1, L.maxBasicAuthFieldLength) && !BASIC_AUTH_USER.test(basicAuth.username)) {
      check.add(`${at}.basicAuth.username`, CODES.NOT_ALLOWED_VALUE, 'must not hold a colon or control characters');
    }
    checkSecret(check, `${at}.basicAuth.password`, basicAuth.password, 1, L.maxBasicAuthFieldLength);
  }
  checkSecret(check, `${at}.hmacSecret`, overrides.hmacSecret, L.minHmacSecretLength, L.maxHmacSecretLength);
}
