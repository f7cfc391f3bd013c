import { ValidationArguments, ValidationOptions, registerDecorator } from 'class-validator';
import { ID_RULE, isValidAssetId } from '../ids';

/**
 * "idTag must be a valid id (...)", or for a list the first bad entry: "entries[3] must be a valid id (...)".
 * The field is named once, and no value is echoed.
 */
function idMessage(check: (value: unknown) => boolean, what: string) {
  return ({ property, value }: ValidationArguments) => {
    const bad = Array.isArray(value) ? value.findIndex((item) => !check(item)) : -1;
    return `${bad >= 0 ? `${property}[${bad}]` : property} must be ${what} (${ID_RULE})`;
  };
}

/** A client-generated asset id in the documented format (never truncated: a wrong length is rejected). */
export function IsAssetId(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isAssetId',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: idMessage(isValidAssetId, 'a valid id'), ...options },
      validator: { validate: (value: unknown) => isValidAssetId(value) },
    });
}

const isAssetIdOrEmpty = (value: unknown) => value === '' || isValidAssetId(value);

/** An asset id or the empty string (no category / uncategorized). */
export function IsAssetIdOrEmpty(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isAssetIdOrEmpty',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: idMessage(isAssetIdOrEmpty, 'the empty string or a valid id'), ...options },
      validator: { validate: isAssetIdOrEmpty },
    });
}
