import { ValidationOptions, registerDecorator } from 'class-validator';
import { ID_RULE, isValidAssetId } from '../ids';

/** A client-generated asset id in the documented format (never truncated: a wrong length is rejected). */
export function IsAssetId(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isAssetId',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `$property: ${ID_RULE}`, ...options },
      validator: { validate: (value: unknown) => isValidAssetId(value) },
    });
}

/** An asset id or the empty string (no category / uncategorized). */
export function IsAssetIdOrEmpty(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isAssetIdOrEmpty',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `$property: the empty string or ${ID_RULE}`, ...options },
      validator: { validate: (value: unknown) => value === '' || isValidAssetId(value) },
    });
}
