// Reading asset records (plain JSON as the read model answers them) without trusting their shape.
import type { AssetRecordLike } from '../model';

export function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string field; `fallback` when absent or not a string. */
export function text(record: AssetRecordLike | undefined, key: string, fallback = ''): string {
  const value = record?.[key];
  return typeof value === 'string' ? value : fallback;
}

/** A finite number field; `fallback` when absent or not one. */
export function num(record: AssetRecordLike | undefined, key: string, fallback: number): number {
  const value = record?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** An object field; undefined when absent or not an object. */
export function obj(record: AssetRecordLike | undefined, key: string): AssetRecordLike | undefined {
  const value = record?.[key];
  return isObject(value) ? value : undefined;
}

/** A list field; [] when absent or not a list. */
export function list(record: AssetRecordLike | undefined, key: string): readonly unknown[] {
  const value = record?.[key];
  return Array.isArray(value) ? value : [];
}
