import { IsBoolean, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export class LoginDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  username!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password!: string;

  /** Spec: marked required, default true; a missing value means true. */
  @IsOptional()
  @IsBoolean()
  issue_refresh_token?: boolean;
}

export class MfaVerifyDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  mfa_token!: string;

  @IsString()
  @IsNotEmpty()
  @MaxLength(16)
  otp!: string;
}

export class OtpDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(16)
  otp!: string;
}

export class ValidateDto {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  refresh_token?: string;
}
