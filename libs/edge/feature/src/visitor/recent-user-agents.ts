import { UAParser } from 'ua-parser-js';
import { DeviceAttributes, deviceAttributes } from '@funnel/edge-domain';

/**
 * Device attributes of User-Agents, parsed with ua-parser-js 1.x (MIT; 2.x is AGPL) and remembered
 * for the `capacity` most recently seen (a Map in use order: a hit moves its entry to the end, the
 * first entry is the least recently used).
 */
export class RecentUserAgents {
  private readonly parser = new UAParser();
  private readonly recent = new Map<string, DeviceAttributes>();

  constructor(private readonly capacity: number) {}

  deviceOf(userAgent: string): DeviceAttributes {
    const known = this.recent.get(userAgent);
    if (known !== undefined) {
      this.recent.delete(userAgent);
      this.recent.set(userAgent, known);
      return known;
    }
    const device = Object.freeze(deviceAttributes(this.parser.setUA(userAgent).getResult()));
    if (this.capacity > 0) {
      if (this.recent.size >= this.capacity) this.recent.delete(this.recent.keys().next().value!);
      this.recent.set(userAgent, device);
    }
    return device;
  }

  get size(): number {
    return this.recent.size;
  }
}
