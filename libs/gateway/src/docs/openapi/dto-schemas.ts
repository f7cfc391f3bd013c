import { ID_PATTERN, SCHEMA_REF_PREFIX, STRING_MAP_LIMITS } from '@funnel/contracts';
import { getMetadataStorage } from 'class-validator';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { ISchemaConverters } from 'class-validator-jsonschema/build/defaultConverters';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
import type { DtoClass, SchemaSource } from './route-doc';

export type Schema = Record<string, unknown>;

// class-transformer's `@Type(() => Nested)` metadata, which tells nested DTOs (the package exports no typed path to it).
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: MetadataStorage };

export { SCHEMA_REF_PREFIX };

const ID_SCHEMA = { type: 'string', pattern: ID_PATTERN.source };

/** The project's own validators (registerDecorator), by name; an unknown custom validator constrains nothing. */
const CONVERTERS = {
  isAssetId: ID_SCHEMA,
  isAssetIdOrEmpty: { type: 'string', anyOf: [{ const: '' }, { pattern: ID_PATTERN.source }] },
  isStringMap: {
    type: 'object',
    maxProperties: STRING_MAP_LIMITS.maxEntries,
    propertyNames: { minLength: 1, maxLength: STRING_MAP_LIMITS.maxKeyLength },
    additionalProperties: { type: 'string', maxLength: STRING_MAP_LIMITS.maxValueLength },
  },
  // class-validator's isIP takes IPv4 and IPv6 unless a version is given.
  isIp: (meta: ValidationMetadata) => {
    const version = String(meta.constraints?.[0] ?? '');
    return version === '4' || version === '6'
      ? { type: 'string', format: `ipv${version}` }
      : { type: 'string', anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] };
  },
  customValidation: {},
} as unknown as ISchemaConverters;

export function isDtoClass(value: unknown): value is DtoClass {
  return typeof value === 'function';
}

/**
 * JSON schemas of class-validator DTOs, converted from the decorators the services validate with
 * (class-validator-jsonschema), kept as named components: `refOf(Dto)` gives a `$ref` and adds the
 * DTO (and the DTOs nested in it) to `components()`.
 */
export class DtoSchemas {
  private readonly schemas = new Map<string, Schema>();
  private readonly classes = new Map<string, DtoClass>();

  refOf(dto: DtoClass): Schema {
    this.add(dto);
    return { $ref: SCHEMA_REF_PREFIX + dto.name };
  }

  /** The DTO's own schema (its properties and required fields), to build other schemas from. */
  schemaOf(dto: DtoClass): Schema {
    this.add(dto);
    return this.schemas.get(dto.name)!;
  }

  /** A schema source made a schema: DTO classes anywhere in it become `$ref`s. */
  resolve(source: SchemaSource): Schema {
    return this.walk(source) as Schema;
  }

  /** A copy of the schema a `$ref` names (other schemas as they are), to change in one place. */
  inlined(schema: Schema): Schema {
    const ref = schema.$ref;
    if (typeof ref !== 'string' || !ref.startsWith(SCHEMA_REF_PREFIX)) return { ...schema };
    const named = this.schemas.get(ref.slice(SCHEMA_REF_PREFIX.length));
    if (!named) throw new Error(`no schema ${ref}`);
    return { ...named };
  }

  /** Named schemas (a kind's `docs.schemas`) that DTO fields refer to by `$ref`. */
  addNamed(schemas: Readonly<Record<string, Schema>>): void {
    for (const [name, schema] of Object.entries(schemas)) {
      const known = this.schemas.get(name);
      if (known === schema) continue;
      if (known) throw new Error(`two schemas are named ${name}: the API document needs distinct names`);
      this.schemas.set(name, schema);
    }
  }

  components(): Record<string, Schema> {
    return Object.fromEntries([...this.schemas.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  private walk(value: unknown): unknown {
    if (isDtoClass(value)) return this.refOf(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.walk(item)]));
    return value;
  }

  private add(dto: DtoClass): void {
    const known = this.classes.get(dto.name);
    if (known === dto) return;
    if (known || this.schemas.has(dto.name)) throw new Error(`two DTO classes are named ${dto.name}: the API document needs distinct names`);
    this.classes.set(dto.name, dto);
    const schema = targetConstructorToSchema(dto, {
      classValidatorMetadataStorage: getMetadataStorage(),
      classTransformerMetadataStorage: defaultMetadataStorage,
      refPointerPrefix: SCHEMA_REF_PREFIX,
      additionalConverters: CONVERTERS,
    }) as Schema;
    this.schemas.set(dto.name, { ...schema, title: dto.name });
    for (const nested of nestedDtos(dto)) this.add(nested);
  }
}

/** The DTO classes a DTO's `@ValidateNested() @Type(() => X)` fields name. */
function nestedDtos(dto: DtoClass): DtoClass[] {
  const found: DtoClass[] = [];
  const storage = getMetadataStorage();
  for (const meta of storage.getTargetValidationMetadatas(dto, '', true, false)) {
    const type = defaultMetadataStorage.findTypeMetadata(meta.target as DtoClass, meta.propertyName);
    const nested = type?.typeFunction();
    if (isDtoClass(nested) && !found.includes(nested) && nested !== String && nested !== Number && nested !== Boolean) found.push(nested as DtoClass);
  }
  return found;
}
