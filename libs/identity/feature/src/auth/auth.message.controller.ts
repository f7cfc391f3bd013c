import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { IdentityRequestBody, IdentitySubjects, RpcRequest } from '@funnel/contracts';
import { AuthService } from './auth.service';

export const AUTH_SERVICE = Symbol.for('funnel.identity.AuthService');

type Forwarded = RpcRequest<IdentityRequestBody>;

/** The /auth routes: login, MFA, validate, sessions, and the public key set. */
@Controller()
@UseFilters(new RpcErrorFilter())
export class AuthMessageController {
  constructor(@Inject(AUTH_SERVICE) private readonly auth: AuthService) {}

  @MessagePattern(IdentitySubjects.signingKeys)
  signingKeys() {
    return this.auth.signingKeys();
  }

  @MessagePattern(IdentitySubjects.login)
  login(@Payload() request: Forwarded) {
    return this.auth.login(request?.body?.body, request?.body?.sourceAddress, request?.context?.correlationId);
  }

  @MessagePattern(IdentitySubjects.mfaVerify)
  verifyMfa(@Payload() request: Forwarded) {
    return this.auth.verifyMfa(request?.body?.body, request?.body?.sourceAddress, request?.context?.correlationId);
  }

  @MessagePattern(IdentitySubjects.validate)
  validate(@Payload() request: Forwarded) {
    return this.auth.validate(request?.body?.bearerToken, request?.body?.body);
  }

  @MessagePattern(IdentitySubjects.revokeSessions)
  revokeSessions(@Payload() request: Forwarded) {
    return this.auth.revokeSessions(request.context);
  }

  @MessagePattern(IdentitySubjects.otpEnroll)
  enrollOtp(@Payload() request: Forwarded) {
    return this.auth.enrollOtp(request.context);
  }

  @MessagePattern(IdentitySubjects.otpConfirm)
  confirmOtp(@Payload() request: Forwarded) {
    return this.auth.confirmOtp(request.context, request?.body?.body);
  }

  @MessagePattern(IdentitySubjects.otpRemove)
  removeOtp(@Payload() request: Forwarded) {
    return this.auth.removeOtp(request.context, request?.body?.body);
  }
}
