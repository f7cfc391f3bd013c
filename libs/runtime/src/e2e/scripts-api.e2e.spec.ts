import { describeInBothModes } from './harness';

const ROUTING = `
if country == "US" && timeInRange(900, 1700, -5) {
  return "us_business_hours"
}
switch deviceType {
case "mobile", "tablet":
  return "mobile"
}
return "default"
`;

describeInBothModes('/v1/logicscripts', (d) => {
  it('publishes the language catalog, whose templates validate', async () => {
    const res = await d().api.call('GET', '/logicscripts/language');
    expect(res.status).toBe(200);
    expect(res.body.maxCodeBytes).toBe(10240);
    expect(res.body.fallbackRouteKey).toBe('default');
    expect(JSON.stringify(res.body)).toContain('trackingField');
    expect(res.body.templates.length).toBeGreaterThanOrEqual(8);
    for (const template of res.body.templates) {
      const check = await d().api.call('POST', '/logicscripts/validate', { body: { code: template.code } });
      expect({ name: template.name, valid: check.body.valid }).toEqual({ name: template.name, valid: true });
    }
  });

  it('validates: route keys in source order, without duplicates', async () => {
    const res = await d().api.call('POST', '/logicscripts/validate/', { body: { code: ROUTING } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, errors: [], routeKeys: ['us_business_hours', 'mobile', 'default'] });
  });

  it('reports errors with line, column and code', async () => {
    const res = await d().api.call('POST', '/logicscripts/validate', { body: { code: 'for {\n}\nreturn "x"' } });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.errors[0]).toMatchObject({ line: 1, column: 1, code: 'FORBIDDEN_LOOP' });
    expect(typeof res.body.errors[0].message).toBe('string');
  });

  it.each([[{}], [{ code: 42 }], [{ code: null }]])('answers 400 to %j', async (body) => {
    const res = await d().api.call('POST', '/logicscripts/validate', { body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('REQUEST.VALIDATION_FAILED');
  });

  it('evaluates a script against a visitor (dry run)', async () => {
    const res = await d().api.call('POST', '/logicscripts/evaluate', {
      body: {
        code: ROUTING,
        visitor: { country: 'US', deviceType: 'desktop', utcOffsetHours: -5 },
        time: '2026-03-02T15:30:00Z',
        routeKeys: ['us_business_hours', 'mobile', 'default'],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ routeKey: 'us_business_hours', fallback: false, valid: true });
    const night = await d().api.call('POST', '/logicscripts/evaluate', {
      body: { code: ROUTING, visitor: { country: 'US', deviceType: 'tablet' }, time: '2026-03-02T03:00:00Z' },
    });
    expect(night.body.routeKey).toBe('mobile');
    const notConnected = await d().api.call('POST', '/logicscripts/evaluate', {
      body: { code: ROUTING, visitor: { country: 'FR', deviceType: 'mobile' }, routeKeys: ['default'] },
    });
    expect(notConnected.body).toMatchObject({ routeKey: 'default', fallback: true });
  });

  it('accepts what Go compiles and evaluates it as Go does (issue 15)', async () => {
    // Code after a return: valid with a warning, and the first return wins.
    const twice = await d().api.call('POST', '/logicscripts/validate', { body: { code: 'return "a"\nreturn "b"' } });
    expect(twice.body).toMatchObject({
      valid: true,
      errors: [],
      routeKeys: ['a'],
      warnings: [expect.objectContaining({ line: 2, column: 1, code: 'UNREACHABLE_CODE' })],
    });
    // Go's constants, shadowing, 64-bit ints and rune-by-rune case mapping.
    const code = [
      'const big = 9007199254740993',
      'city := strings.ToLower(city)',
      'if city == "izmir" && strings.ToUpper("ß") == "ß" && year < big && 0x7E8 == year {',
      '\treturn "go"',
      '}',
      'return "other"',
    ].join('\n');
    const res = await d().api.call('POST', '/logicscripts/evaluate', { body: { code, visitor: { city: 'İzmir' }, time: '2024-05-06T14:30:00Z' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, routeKey: 'go', fallback: false });
    // A string literal that is not valid UTF-8 is the one difference from Go, reported where it is.
    const bytes = await d().api.call('POST', '/logicscripts/validate', { body: { code: 'if city == "\\xff" {\n\treturn "a"\n}\nreturn "b"' } });
    expect(bytes.body).toMatchObject({ valid: false, errors: [expect.objectContaining({ line: 1, column: 13, code: 'INVALID_UTF8_LITERAL' })] });
  });

  it('answers 400 to bad evaluation input', async () => {
    expect((await d().api.call('POST', '/logicscripts/evaluate', { body: { code: ROUTING, visitor: { country: 5 } } })).status).toBe(400);
    expect((await d().api.call('POST', '/logicscripts/evaluate', { body: { code: ROUTING, visitor: {}, time: 'yesterday' } })).status).toBe(400);
    expect((await d().api.call('POST', '/logicscripts/evaluate', { body: { visitor: {} } })).status).toBe(400);
  });

  it('requires authentication', async () => {
    expect((await d().api.call('GET', '/logicscripts/language', { key: '' })).status).toBe(401);
    expect((await d().api.call('POST', '/logicscripts/validate', { key: '', body: { code: 'return "a"' } })).status).toBe(401);
    expect((await d().api.call('POST', '/logicscripts/evaluate', { key: 'wrong-key-wrong-key-123', body: { code: 'return "a"', visitor: {} } })).status).toBe(
      401,
    );
  });
});
