import { responseContract } from './response-contract';

const TAG = {
  idTag: '0ABCDEFGhijkl'.slice(0, 12),
  tagName: 'vip',
  status: 'active',
  idCategory: '',
  categoryName: '',
  owner: 'A1',
  color: '',
  tagType: '',
  tagValue: '',
};

describe('the e2e suites check answers against the API document', () => {
  const contract = responseContract();
  const check = (method: string, path: string, status: number, body: unknown) =>
    contract.problem(method, path, status, body === undefined ? '' : JSON.stringify(body), body);

  it('accepts an answer that matches, with or without the trailing slash and a query', () => {
    expect(check('GET', '/visitortag/find/byId/?idTag=x', 200, TAG)).toBeUndefined();
    expect(check('GET', '/visitortag/list', 200, [TAG])).toBeUndefined();
    expect(check('POST', '/visitortag/save/', 200, undefined)).toBeUndefined();
  });

  it('fails a record missing a required field, a field of the wrong type, or a field the API does not have, naming path, status and problem', () => {
    const { tagName, ...withoutName } = TAG;
    void tagName;
    expect(check('GET', '/visitortag/find/byId/?idTag=x', 200, withoutName)).toMatch(
      /^GET \/v1\/visitortag\/find\/byId\/\?idTag=x answered 200, which does not match the API document:\n.*must have required property 'tagName'/,
    );
    expect(check('GET', '/visitortag/find/byId', 200, { ...TAG, status: 3 })).toMatch(/\/status must be string/);
    expect(check('GET', '/visitortag/list', 200, [{ ...TAG, secret: 'x' }])).toMatch(/\/0 must NOT have additional properties/);
  });

  it('fails a body where the document gives none, a status it does not give, and a route it does not have', () => {
    expect(check('POST', '/visitortag/save', 200, { ok: true })).toMatch(/with a body, but the document says it answers none/);
    expect(check('GET', '/visitortag/find/byId', 201, TAG)).toMatch(/a status the document does not give/);
    expect(check('GET', '/visitortag/nothing', 200, {})).toMatch(/the document has no GET \/visitortag\/nothing/);
  });

  it('checks errors against the error body of the route: standard, or billing', () => {
    expect(check('GET', '/visitortag/list', 404, { error: 'no', code: 'ASSET.NOT_FOUND', details: [] })).toBeUndefined();
    expect(check('GET', '/visitortag/list', 400, { message: 'no' })).toMatch(/must have required property 'error'/);
    expect(check('GET', '/visitortag/list', 500, { correlationId: 'c1' })).toBeUndefined();
    expect(check('GET', '/billing/domains/x.example.com', 404, { success: false, error_code: 'NOT_FOUND', error_message: 'no', details: [] })).toBeUndefined();
    expect(check('GET', '/billing/domains/x.example.com', 404, { error: 'no', code: 'NOT_FOUND', details: [] })).toMatch(/required property 'success'/);
    expect(check('GET', '/nothing/here', 404, { error: 'no route', code: 'REQUEST.ROUTE_NOT_FOUND', details: [] })).toBeUndefined();
  });

  it('leaves answers that are not JSON to the caller (the reference page)', () => {
    expect(contract.problem('GET', '/docs', 200, '<!doctype html>', '<!doctype html>')).toBeUndefined();
  });
});
