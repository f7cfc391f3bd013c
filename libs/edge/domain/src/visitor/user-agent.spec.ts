import { deviceAttributes } from './user-agent';

describe('deviceAttributes', () => {
  it('reads a phone', () => {
    const parsed = {
      browser: { name: 'Mobile Safari', version: '17.4' },
      os: { name: 'iOS', version: '17.4' },
      device: { vendor: 'Apple', model: 'iPhone', type: 'mobile' },
    };
    expect(deviceAttributes(parsed)).toEqual({
      deviceType: 'mobile',
      brand: 'Apple',
      model: 'iPhone',
      os: 'iOS',
      osVersion: '17.4',
      browser: 'Mobile Safari',
      browserVersion: '17.4',
    });
  });

  it('calls a known browser or OS without a device type a desktop, with unknown brand and model when none is named', () => {
    const parsed = { browser: { name: 'Chrome', version: '124.0.0.0' }, os: { name: 'Windows', version: '10' }, device: {} };
    expect(deviceAttributes(parsed)).toEqual({
      deviceType: 'desktop',
      brand: 'unknown',
      model: 'unknown',
      os: 'Windows',
      osVersion: '10',
      browser: 'Chrome',
      browserVersion: '124.0.0.0',
    });
    expect(deviceAttributes({ browser: {}, os: { name: 'Linux' }, device: {} }).deviceType).toBe('desktop');
  });

  it.each(['tablet', 'smarttv', 'console', 'wearable', 'embedded'])('keeps the parser device type %s', (type) => {
    expect(deviceAttributes({ browser: {}, os: {}, device: { type } }).deviceType).toBe(type);
  });

  it('is unknown in every attribute when nothing is recognised (bots, scripts, no header)', () => {
    expect(deviceAttributes({ browser: {}, os: {}, device: {} })).toEqual({
      deviceType: 'unknown',
      brand: 'unknown',
      model: 'unknown',
      os: 'unknown',
      osVersion: 'unknown',
      browser: 'unknown',
      browserVersion: 'unknown',
    });
  });
});
