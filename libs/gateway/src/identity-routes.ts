import { IdentitySubjects } from '@funnel/contracts';
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
    route('POST', '/auth/login', IdentitySubjects.login, 'public', { forwardSourceAddress: true }),
    route('POST', '/auth/mfa/verify', IdentitySubjects.mfaVerify, 'public', { forwardSourceAddress: true }),
    route('POST', '/auth/validate', IdentitySubjects.validate, 'public', { forwardBearerToken: true }),
    route('GET', '/auth/jwks', IdentitySubjects.signingKeys, 'public'),
    route('POST', '/auth/sessions/revoke', IdentitySubjects.revokeSessions, 'authenticated'),
    route('POST', '/auth/mfa/otp/enroll', IdentitySubjects.otpEnroll, 'authenticated'),
    route('POST', '/auth/mfa/otp/confirm', IdentitySubjects.otpConfirm, 'authenticated'),
    route('DELETE', '/auth/mfa/otp', IdentitySubjects.otpRemove, 'authenticated'),
    route('GET', '/apikeys/list', IdentitySubjects.apiKeysList, 'keys:manage'),
    route('POST', '/apikeys/generate', IdentitySubjects.apiKeysGenerate, 'keys:manage'),
    route('PUT', '/apikeys/update', IdentitySubjects.apiKeysUpdate, 'keys:manage'),
    route('DELETE', '/apikeys/delete', IdentitySubjects.apiKeysDelete, 'keys:manage'),
    route('GET', '/usersettings', IdentitySubjects.userSettingsGet, 'authenticated'),
    route('POST', '/usersettings/save', IdentitySubjects.userSettingsSave, 'settings:write'),
    route('DELETE', '/usersettings/delete', IdentitySubjects.userSettingsDelete, 'settings:write'),
  ];
}
