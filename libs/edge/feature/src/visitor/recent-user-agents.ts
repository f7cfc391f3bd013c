import { UAParser } from 'ua-parser-js';
import { DeviceAttributes, deviceAttributes } from '@funnel/edge-domain';
import { RecentValues } from './recent-values';

/**
 * Device attributes of User-Agents, parsed with ua-parser-js 1.x (MIT; 2.x is AGPL) and remembered
 * for the `capacity` most recently seen (bots and a campaign's visitors repeat a few of them).
 */
export class RecentUserAgents {
  private readonly parser = new UAParser();
  private readonly recent: RecentValues<DeviceAttributes>;

  constructor(capacity: number) {
    this.recent = new RecentValues(capacity, (userAgent) => Object.freeze(deviceAttributes(this.parser.setUA(userAgent).getResult())));
  }

  deviceOf(userAgent: string): DeviceAttributes {
    return this.recent.get(userAgent);
  }

  get size(): number {
    return this.recent.size;
  }
}
