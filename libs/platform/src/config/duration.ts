import { type ConfigRule, INVALID_CONFIG_VALUE } from './config';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d{1,6})([smhd])$/;

/** A duration written as a whole number and a unit: `30s`, `90m`, `36h`, `7d`; read as milliseconds. */
export function duration(options: { default: string; min: string; max: string }): ConfigRule<number> {
  const parse = (raw: string): number | undefined => {
    const match = DURATION.exec(raw.trim());
    return match ? Number(match[1]) * UNIT_MS[match[2]] : undefined;
  };
  const [min, max] = [parse(options.min)!, parse(options.max)!];
  return {
    description: `a duration from ${options.min} to ${options.max} as a whole number and a unit s, m, h or d, e.g. 7d or 36h (default ${options.default})`,
    read(raw) {
      const ms = parse(raw ?? options.default);
      return ms !== undefined && ms >= min && ms <= max ? ms : INVALID_CONFIG_VALUE;
    },
  };
}
