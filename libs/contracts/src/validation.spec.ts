import { IsArray, IsBoolean, IsOptional, IsString, Length } from 'class-validator';
import { IsAssetId } from './assets/id-validators';
import { StringListDto } from './assets/requests';
import { ServiceError } from './errors';
import { OpaqueJson, validateBody } from './validation';

class ThingDto {
  @IsString() @IsAssetId() id!: string;
  @IsString() @Length(1, 10) name!: string;
  @IsOptional() @IsString() color?: string;
  @IsOptional() @IsBoolean() enabled?: boolean;
}

function failure(body: unknown, dto: new () => object = ThingDto): ServiceError {
  try {
    validateBody(dto, body);
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('expected a validation failure');
}

describe('validateBody', () => {
  it('says a missing field is required, and only that', () => {
    expect(failure({ id: 'AAAAAAAAAAAA' })).toMatchObject({
      status: 400,
      code: 'REQUEST.VALIDATION_FAILED',
      message: 'invalid body: name is required',
      details: [{ field: 'name', code: 'required', message: 'name is required' }],
    });
  });

  it('reports a wrong type before the rules of the type, and names each field once', () => {
    const error = failure({ id: 'abc', name: 42 });
    expect(error.message).toBe('invalid body: id must be a valid id (an id is 12 characters of 0-9, A-Z, a-z (7 time characters, then 5 random characters))');
    expect(error.details).toEqual([
      { field: 'id', code: 'isAssetId', message: expect.stringMatching(/^id must be a valid id/) },
      { field: 'name', code: 'isString', message: 'name must be a string' },
    ]);
  });

  it('names the first bad entry of a list', () => {
    expect(failure({ entries: ['AAAAAAAAAAAA', 'nope'] }, StringListDto).details).toEqual([
      { field: 'entries', code: 'isAssetId', message: expect.stringMatching(/^entries\[1\] must be a valid id/) },
    ]);
  });

  it('treats null as absent: an optional field stays unset, a required one is missing', () => {
    const valid = validateBody(ThingDto, { id: 'AAAAAAAAAAAA', name: 'n', color: null, enabled: null });
    expect(Object.entries(valid).filter(([, value]) => value !== undefined)).toEqual([
      ['id', 'AAAAAAAAAAAA'],
      ['name', 'n'],
    ]);
    expect(failure({ id: 'AAAAAAAAAAAA', name: null }).details).toEqual([{ field: 'name', code: 'required', message: 'name is required' }]);
  });

  it('refuses a body that is not an object, with a detail of the same shape', () => {
    expect(failure([1]).details).toEqual([{ field: '', code: 'isObject', message: 'body must be a JSON object' }]);
  });
});

describe('OpaqueJson fields', () => {
  class GraphDto {
    @IsString() name!: string;
    @IsOptional() @IsArray() @OpaqueJson() items: unknown[] = [];
  }

  it('given an opaque field, then its value is taken as it is (not copied) and its rules still run; left out, it keeps its default', () => {
    const items = [{ a: { b: [1, null] } }, 'x'];
    expect(validateBody(GraphDto, { name: 'g', items }).items).toBe(items);
    expect(validateBody(GraphDto, { name: 'g' }).items).toEqual([]);
    expect(() => validateBody(GraphDto, { name: 'g', items: { not: 'a list' } })).toThrow(/items must be an array/);
  });
});
