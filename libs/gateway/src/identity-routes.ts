import {
  DeleteApiKeysDto,
  GenerateApiKeyDto,
  IdentitySubjects,
  LoginDto,
  MFA_CHALLENGE_SCHEMA,
  MfaVerifyDto,
  OtpDto,
  SESSION_SCHEMA,
  UpdateApiKeyDto,
  ValidateDto,
  apiKeySchema,
} from '@funnel/contracts';
import { ForwardedRoute } from './route-table';

/**
 * Authentication, integration API keys and user settings, served by the identity service.
 * Login, MFA verification, validate and the key set are public: they are how a client gets or
 * checks a credential, so the identity service checks what they carry.
 */
export function identityRoutes(): ForwardedRoute[] {
  const route = (
    method: ForwardedRoute['method'],
    path: string,
    subject: string,
    permission: ForwardedRoute['permission'],
    extra: Partial<ForwardedRoute> = {},
  ): ForwardedRoute => ({
    method,
    path,
    subject,
    permission,
    reply: 'whole',
    ...extra,
  });
  return [
    route('POST', '/auth/login', IdentitySubjects.login, 'public', {
      forwardSourceAddress: true,
      doc: { summary: 'Log in with a password', body: LoginDto, answer: { oneOf: [SESSION_SCHEMA, MFA_CHALLENGE_SCHEMA] } },
    }),
    route('POST', '/auth/mfa/verify', IdentitySubjects.mfaVerify, 'public', {
      forwardSourceAddress: true,
      doc: { summary: "Complete a login with the user's one-time password", body: MfaVerifyDto, answer: SESSION_SCHEMA },
    }),
    route('POST', '/auth/validate', IdentitySubjects.validate, 'public', {
      forwardBearerToken: true,
      doc: {
        summary: 'Check an access token (the Bearer header), reissuing an expired one from a refresh token',
        body: ValidateDto,
        bodyOptional: true,
        answer: SESSION_SCHEMA,
      },
    }),
    route('GET', '/auth/jwks', IdentitySubjects.signingKeys, 'public', {
      doc: {
        summary: "The access tokens' public signing keys (a JWK set)",
        answer: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object' } } }, additionalProperties: false },
      },
    }),
    route('POST', '/auth/sessions/revoke', IdentitySubjects.revokeSessions, 'authenticated', {
      doc: {
        summary: "Revoke the caller's sessions (refresh tokens)",
        answer: { type: 'object', required: ['revoked'], properties: { revoked: { type: 'integer', minimum: 0 } }, additionalProperties: false },
      },
    }),
    route('POST', '/auth/mfa/otp/enroll', IdentitySubjects.otpEnroll, 'authenticated', {
      doc: {
        summary: 'Start enrolling a one-time-password factor',
        userSessionOnly: true,
        answer: {
          type: 'object',
          required: ['secret', 'otpauth_uri'],
          properties: { secret: { type: 'string' }, otpauth_uri: { type: 'string' } },
          additionalProperties: false,
        },
      },
    }),
    route('POST', '/auth/mfa/otp/confirm', IdentitySubjects.otpConfirm, 'authenticated', {
      doc: { summary: 'Confirm the factor with a code', body: OtpDto, userSessionOnly: true },
    }),
    route('DELETE', '/auth/mfa/otp', IdentitySubjects.otpRemove, 'authenticated', {
      doc: { summary: 'Remove the factor (needs a current code)', body: OtpDto, userSessionOnly: true },
    }),
    route('GET', '/apikeys/list', IdentitySubjects.apiKeysList, 'keys:manage', {
      doc: { summary: "The account's API keys (never their secrets)", answer: { type: 'array', items: apiKeySchema() } },
    }),
    route('POST', '/apikeys/generate', IdentitySubjects.apiKeysGenerate, 'keys:manage', {
      doc: { summary: 'Generate an API key (its secret is answered this once)', body: GenerateApiKeyDto, answer: apiKeySchema(true) },
    }),
    route('PUT', '/apikeys/update', IdentitySubjects.apiKeysUpdate, 'keys:manage', {
      doc: { summary: "Change a key's name, permissions or switch", body: UpdateApiKeyDto, answer: apiKeySchema() },
    }),
    route('DELETE', '/apikeys/delete', IdentitySubjects.apiKeysDelete, 'keys:manage', { doc: { summary: 'Delete API keys', body: DeleteApiKeysDto } }),
    route('GET', '/usersettings', IdentitySubjects.userSettingsGet, 'authenticated', {
      doc: { summary: "The caller's settings (one JSON object; {} when none)", answer: { type: 'object' } },
    }),
    route('POST', '/usersettings/save', IdentitySubjects.userSettingsSave, 'settings:write', {
      doc: { summary: "Replace the caller's settings (a JSON object of at most 64 KiB)", body: { type: 'object' } },
    }),
    route('DELETE', '/usersettings/delete', IdentitySubjects.userSettingsDelete, 'settings:write', { doc: { summary: "Delete the caller's settings" } }),
  ];
}
