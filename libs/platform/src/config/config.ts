/**
 * Declarative, typed configuration from environment variables, validated once at start.
 *
 *   const config = loadConfig({ PORT: port({ default: 3000 }), NATS_URL: url({ optional: true }) });
 *   config.PORT      // number
 *   config.NATS_URL  // string | undefined
 *
 * An empty variable counts as unset, so `PORT=` in an env file falls back to the default.
 */

/** Thrown on the first bad or missing variable; `message` is the one line to print. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly rule: string,
    readonly problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

/** A variable's rule: how to read it, and what to say when the value breaks it. */
export interface ConfigRule<T> {
  /** Human wording of the rule, used in error lines ("an integer from 100 to 5000"). */
  readonly description: string;
  /** The typed value, or INVALID_CONFIG_VALUE when the raw text (undefined: unset) breaks the rule. */
  read(raw: string | undefined): T | typeof INVALID_CONFIG_VALUE;
}

export type ConfigSpec = Record<string, ConfigRule<unknown>>;
export type Config<S extends ConfigSpec> = { readonly [K in keyof S]: S[K] extends ConfigRule<infer T> ? T : never };

/** What a rule returns for a value it rejects, or for a required value that is missing. */
export const INVALID_CONFIG_VALUE: unique symbol = Symbol('invalid configuration value');

const SECRET_NAME = /KEY|SECRET|PASSWORD|TOKEN/i;
const MAX_ECHOED_LENGTH = 80;

export function loadConfig<S extends ConfigSpec>(spec: S, env: NodeJS.ProcessEnv = process.env): Config<S> {
  const config: Record<string, unknown> = {};
  for (const [variable, rule] of Object.entries(spec)) {
    const raw = env[variable] === '' ? undefined : env[variable];
    const value = rule.read(raw);
    if (value === INVALID_CONFIG_VALUE) {
      const problem = raw === undefined ? `is required: set it to ${rule.description}` : describeBadValue(variable, rule, raw);
      throw new ConfigError(variable, rule.description, problem);
    }
    config[variable] = value;
  }
  return Object.freeze(config) as Config<S>;
}

function describeBadValue(variable: string, rule: ConfigRule<unknown>, raw: string): string {
  if (SECRET_NAME.test(variable)) return `must be ${rule.description} (value hidden: the name looks like a secret)`;
  const shown = raw.length > MAX_ECHOED_LENGTH ? `${raw.slice(0, MAX_ECHOED_LENGTH)}...` : raw;
  // JSON quoting keeps control characters and newlines from breaking the one-line message.
  return `must be ${rule.description}, got ${JSON.stringify(shown)}`;
}

interface Presence<T> {
  default?: T;
  optional?: boolean;
}
type WithDefault<T> = { default: T; optional?: false } | { default?: undefined; optional?: false };
type Optional = { optional: true; default?: undefined };

/** Shared handling of unset values: default, optional (undefined), or missing. */
function rule<T>(description: string, presence: Presence<T>, parse: (raw: string) => T | typeof INVALID_CONFIG_VALUE): ConfigRule<T> {
  const suffix = presence.default !== undefined ? ` (default ${String(presence.default)})` : '';
  return {
    description: description + suffix,
    read(raw) {
      if (raw === undefined) {
        if (presence.default !== undefined) return presence.default;
        return presence.optional ? (undefined as T) : INVALID_CONFIG_VALUE;
      }
      return parse(raw);
    },
  };
}

export interface StringOptions {
  minLength?: number;
}
export function string(options: Optional & StringOptions): ConfigRule<string | undefined>;
export function string(options?: WithDefault<string> & StringOptions): ConfigRule<string>;
export function string(options: Presence<string> & StringOptions = {}): ConfigRule<string | undefined> {
  const minLength = options.minLength ?? 0;
  const description = minLength > 0 ? `a string of at least ${minLength} characters` : 'a string';
  return rule(description, options, (raw) => (raw.length >= minLength ? raw : INVALID_CONFIG_VALUE));
}

export interface IntOptions {
  min?: number;
  max?: number;
}
export function int(options: Optional & IntOptions): ConfigRule<number | undefined>;
export function int(options?: WithDefault<number> & IntOptions): ConfigRule<number>;
export function int(options: Presence<number> & IntOptions = {}): ConfigRule<number | undefined> {
  return integerRule(options, options.min, options.max);
}

/** A TCP port; 0 asks the OS for a free one (handy in tests). */
export function port(options: Optional): ConfigRule<number | undefined>;
export function port(options?: WithDefault<number>): ConfigRule<number>;
export function port(options: Presence<number> = {}): ConfigRule<number | undefined> {
  return integerRule(options, 0, 65535, 'a port');
}

function integerRule(presence: Presence<number>, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER, noun = 'an integer') {
  const bounds =
    min > Number.MIN_SAFE_INTEGER && max < Number.MAX_SAFE_INTEGER
      ? ` from ${min} to ${max}`
      : min > Number.MIN_SAFE_INTEGER
        ? ` of at least ${min}`
        : max < Number.MAX_SAFE_INTEGER
          ? ` of at most ${max}`
          : '';
  return rule(`${noun}${bounds}`, presence, (raw) => {
    if (!/^[+-]?\d+$/.test(raw.trim())) return INVALID_CONFIG_VALUE;
    const value = Number(raw);
    return Number.isSafeInteger(value) && value >= min && value <= max ? value : INVALID_CONFIG_VALUE;
  });
}

export interface UrlOptions {
  /** Allowed schemes without the colon, e.g. ['nats', 'tls']; any scheme when absent. */
  protocols?: string[];
}
export function url(options: Optional & UrlOptions): ConfigRule<string | undefined>;
export function url(options?: WithDefault<string> & UrlOptions): ConfigRule<string>;
export function url(options: Presence<string> & UrlOptions = {}): ConfigRule<string | undefined> {
  const protocols = options.protocols;
  const description = protocols ? `a URL (${protocols.map((p) => `${p}://`).join(', ')})` : 'a URL';
  return rule(description, options, (raw) => {
    if (!URL.canParse(raw)) return INVALID_CONFIG_VALUE;
    const scheme = new URL(raw).protocol.slice(0, -1);
    return !protocols || protocols.includes(scheme) ? raw : INVALID_CONFIG_VALUE;
  });
}

export function oneOf<const V extends string>(values: readonly V[], options: Optional): ConfigRule<V | undefined>;
export function oneOf<const V extends string>(values: readonly V[], options?: WithDefault<NoInfer<V>>): ConfigRule<V>;
export function oneOf<const V extends string>(values: readonly V[], options: Presence<V> = {}): ConfigRule<V | undefined> {
  return rule(`one of ${values.join(', ')}`, options, (raw) => ((values as readonly string[]).includes(raw) ? (raw as V) : INVALID_CONFIG_VALUE));
}

const TRUE_WORDS = ['true', '1', 'yes', 'on'];
const FALSE_WORDS = ['false', '0', 'no', 'off'];
export function bool(options: Optional): ConfigRule<boolean | undefined>;
export function bool(options?: WithDefault<boolean>): ConfigRule<boolean>;
export function bool(options: Presence<boolean> = {}): ConfigRule<boolean | undefined> {
  return rule('true or false (also 1/0, yes/no, on/off)', options, (raw) => {
    const word = raw.trim().toLowerCase();
    return TRUE_WORDS.includes(word) ? true : FALSE_WORDS.includes(word) ? false : INVALID_CONFIG_VALUE;
  });
}
