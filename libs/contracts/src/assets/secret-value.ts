import { IsOptional, IsString, Length, ValidateIf } from 'class-validator';

/** What a write-only secret shows on reads; sent back on a write, it keeps the stored value. */
export const SECRET_PLACEHOLDER = '********';

/**
 * A write-only secret on writes: the real value (a string of `min`..`max` characters), the
 * placeholder `********` (keep the stored one), or `""` / `null` (remove it). Never echoed in errors.
 */
export function IsSecretInput(min: number, max: number): PropertyDecorator {
  return (target, property) => {
    IsOptional()(target, property);
    ValidateIf((_object, value: unknown) => value !== '' && value !== SECRET_PLACEHOLDER)(target, property);
    IsString()(target, property);
    Length(min, max)(target, property);
  };
}
