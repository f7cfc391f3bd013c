import { RecentUserAgents } from './recent-user-agents';

const ua = (n: number) => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${n}.0.0.0 Safari/537.36`;

describe('RecentUserAgents', () => {
  it('parses a User-Agent into device attributes', () => {
    expect(new RecentUserAgents(10).deviceOf(ua(124))).toEqual({
      deviceType: 'desktop',
      brand: 'unknown',
      model: 'unknown',
      os: 'Windows',
      osVersion: '10',
      browser: 'Chrome',
      browserVersion: '124.0.0.0',
    });
  });

  it('remembers at most its capacity, dropping the least recently used', () => {
    const recent = new RecentUserAgents(2);
    const first = recent.deviceOf(ua(1));
    const second = recent.deviceOf(ua(2));
    expect(recent.deviceOf(ua(1))).toBe(first); // remembered, and now the most recent
    recent.deviceOf(ua(3)); // drops ua(2)
    expect(recent.size).toBe(2);
    expect(recent.deviceOf(ua(1))).toBe(first);
    const parsedAgain = recent.deviceOf(ua(2));
    expect(parsedAgain).toEqual(second);
    expect(parsedAgain).not.toBe(second);
    expect(recent.deviceOf(ua(2))).toBe(parsedAgain);
  });

  it('remembers nothing with a capacity of 0', () => {
    const recent = new RecentUserAgents(0);
    recent.deviceOf(ua(1));
    expect(recent.size).toBe(0);
    expect(recent.deviceOf(ua(1)).browser).toBe('Chrome');
  });
});
