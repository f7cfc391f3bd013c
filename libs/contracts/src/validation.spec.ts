import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsObject, IsOptional, IsString, Length, ValidateNested } from 'class-validator';
import { IsAssetId } from './assets/id-validators';
import { StringListDto } from './assets/requests';
import { ServiceError } from './errors';
import { LoginDto } from './identity';
import { MAX_OBJECT_FIELDS, OpaqueJson, validateBody } from './validation';

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

describe('validateBody on bodies of many fields', () => {
  class LeafDto {
    @IsString() name!: string;
  }
  class TreeDto {
    @IsString() name!: string;
    @IsOptional() @IsObject() meta?: Record<string, unknown>;
    @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => LeafDto) leaves?: LeafDto[];
    @IsOptional() @ValidateNested() @Type(() => LeafDto) leaf?: LeafDto;
  }
  const manyFields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, i]));

  it('given a login with 120,000 unknown fields, then it is a 400 naming the bound, before any field is read', () => {
    const error = failure({ username: 'a@example.com', password: 'secret', ...manyFields(120_000) }, LoginDto);
    expect(error).toMatchObject({
      status: 400,
      code: 'REQUEST.TOO_MANY_FIELDS',
      message: `invalid body: the body has more than ${MAX_OBJECT_FIELDS} fields`,
      details: [{ field: '', code: 'maxFields', message: `the body has more than ${MAX_OBJECT_FIELDS} fields` }],
    });
  });

  it('given too many fields in a nested DTO or a free-form object, then the 400 names where', () => {
    expect(failure({ name: 't', leaves: [{ name: 'a' }, { name: 'b', ...manyFields(MAX_OBJECT_FIELDS + 1) }] }, TreeDto).details).toEqual([
      { field: 'leaves[1]', code: 'maxFields', message: expect.stringMatching(/^leaves\[1\] has more than/) },
    ]);
    expect(failure({ name: 't', meta: { deep: manyFields(MAX_OBJECT_FIELDS + 1) } }, TreeDto).details[0].field).toBe('meta.deep');
  });

  it('given nested DTOs, then they become instances with their unknown fields dropped, and free-form values are copies', () => {
    const meta = { a: { b: [1, { c: null }] }, toString: 'kept' };
    const tree = validateBody(TreeDto, { name: 't', extra: 1, meta, leaves: [{ name: 'a', stray: 2 }], leaf: { name: 'b' } });
    expect(tree).toBeInstanceOf(TreeDto);
    expect(tree.leaves![0]).toBeInstanceOf(LeafDto);
    expect(tree.leaf).toBeInstanceOf(LeafDto);
    expect({ ...tree.leaves![0] }).toEqual({ name: 'a' });
    expect('extra' in tree).toBe(false);
    expect(tree.meta).toEqual(meta);
    expect(tree.meta).not.toBe(meta);
    expect(failure({ name: 't', leaves: [{ name: 1 }] }, TreeDto).details).toMatchObject([{ field: 'leaves.0.name', code: 'isString' }]);
  });

  it('given up to the bound of fields per object, then the body is validated', () => {
    expect(validateBody(TreeDto, { name: 't', meta: manyFields(MAX_OBJECT_FIELDS), ...manyFields(MAX_OBJECT_FIELDS - 4) }).name).toBe('t');
  });
});
