import type { JsonSchema } from '../assets/asset-kind';

const STRING = { type: 'string' };
const UNIX_SECONDS = { type: 'integer', description: 'Unix seconds' };

/** A session (login, MFA verification, validate), as the API document shows it (see Session). */
export const SESSION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['tokens', 'user'],
  additionalProperties: false,
  properties: {
    tokens: {
      type: 'object',
      required: ['access_token', 'id_token', 'refresh_token', 'expires_at'],
      additionalProperties: false,
      properties: {
        access_token: STRING,
        id_token: STRING,
        refresh_token: { type: 'string', description: 'empty when none was issued' },
        expires_at: UNIX_SECONDS,
      },
    },
    user: {
      type: 'object',
      required: ['user_id', 'permissions', 'email', 'email_verified', 'name', 'nickname', 'picture_url', 'updated_at'],
      additionalProperties: false,
      properties: {
        user_id: STRING,
        permissions: { type: 'array', items: STRING },
        email: STRING,
        email_verified: { type: 'boolean' },
        name: STRING,
        nickname: STRING,
        picture_url: STRING,
        updated_at: UNIX_SECONDS,
      },
    },
  },
};

/** A login's answer when the user has a second factor (see MfaChallenge). */
export const MFA_CHALLENGE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['mfa_required', 'mfa_token', 'factor', 'mfa_requirements'],
  additionalProperties: false,
  properties: {
    mfa_required: { const: true },
    mfa_token: STRING,
    factor: { const: 'otp' },
    mfa_requirements: {
      type: 'object',
      required: ['challenge', 'expires_at'],
      properties: { challenge: { type: 'array', items: { type: 'object', properties: { type: { const: 'otp' } } } }, expires_at: UNIX_SECONDS },
    },
  },
};

/** An API key as lists show it (see ApiKeyInfo); `withKey`: the generate answer, with the secret shown this once. */
export function apiKeySchema(withKey = false): JsonSchema {
  const properties: Record<string, unknown> = {
    id: STRING,
    name: STRING,
    prefix: { type: 'string', description: 'the first characters of the key' },
    permissions: { type: 'array', items: STRING },
    enabled: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
    userId: STRING,
  };
  const required = Object.keys(properties);
  if (withKey) properties.key = { type: 'string', description: 'the secret, shown this once' };
  return { type: 'object', required: withKey ? [...required, 'key'] : required, properties, additionalProperties: false };
}
