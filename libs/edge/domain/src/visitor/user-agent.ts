// A parsed User-Agent (ua-parser-js 1.x result shape) -> device, OS and browser attributes.
import { UNKNOWN, knownOr } from './unknown';

/** The parts of a ua-parser-js 1.x result the edge reads. */
export interface ParsedUserAgent {
  browser: { name?: string; version?: string };
  os: { name?: string; version?: string };
  device: { type?: string; vendor?: string; model?: string };
}

export interface DeviceAttributes {
  /** `desktop`, `mobile`, `tablet`, `smarttv`, `console`, `wearable`, `embedded` or `unknown`. */
  deviceType: string;
  brand: string;
  model: string;
  os: string;
  osVersion: string;
  browser: string;
  browserVersion: string;
}

export const UNKNOWN_DEVICE: DeviceAttributes = Object.freeze({
  deviceType: UNKNOWN,
  brand: UNKNOWN,
  model: UNKNOWN,
  os: UNKNOWN,
  osVersion: UNKNOWN,
  browser: UNKNOWN,
  browserVersion: UNKNOWN,
});

/** How much of a User-Agent header is read (parsed and kept as `userAgent`). */
export const MAX_USER_AGENT_LENGTH = 512;

/**
 * The device attributes of a parsed User-Agent. The device type is the parser's (`mobile`, `tablet`,
 * `smarttv`, `console`, `wearable`, `embedded`); a browser or OS the parser knows with no device type
 * is a `desktop` (ua-parser-js names no type for desktops); a User-Agent it recognises nothing in
 * (bots, scripts such as curl) is `unknown`.
 */
export function deviceAttributes(parsed: ParsedUserAgent): DeviceAttributes {
  const { browser, os, device } = parsed;
  const recognised = Boolean(browser.name || os.name || device.type || device.vendor);
  return {
    deviceType: device.type ? device.type : recognised ? 'desktop' : UNKNOWN,
    brand: knownOr(device.vendor),
    model: knownOr(device.model),
    os: knownOr(os.name),
    osVersion: knownOr(os.version),
    browser: knownOr(browser.name),
    browserVersion: knownOr(browser.version),
  };
}
