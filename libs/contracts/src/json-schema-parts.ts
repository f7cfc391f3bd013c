import type { JsonSchema } from './assets/asset-kind';

/* Parts of the JSON Schemas the API documents show for answers that are not asset records. */

export const STRING_SCHEMA = { type: 'string' };
export const TIME_SCHEMA = { type: 'string', format: 'date-time' };
export const COUNT_SCHEMA = { type: 'integer', minimum: 0 };

/** An object with exactly `properties`, each required unless named in `optional`. */
export function closedObjectSchema(properties: Record<string, unknown>, optional: readonly string[] = [], description?: string): JsonSchema {
  return {
    type: 'object',
    required: Object.keys(properties).filter((p) => !optional.includes(p)),
    properties,
    additionalProperties: false,
    ...(description ? { description } : {}),
  };
}
