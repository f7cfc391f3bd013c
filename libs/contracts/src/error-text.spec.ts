import { ERROR_MAX_DETAILS, ERROR_TEXT_MAX_BYTES, boundErrorText, truncateUtf8 } from './error-text';
import { type ErrorDetail, ServiceError } from './errors';

const bytesOf = (bounded: { message: string; details: { field: string; code: string; message: string }[] }) =>
  Buffer.byteLength(bounded.message) + bounded.details.reduce((sum, d) => sum + Buffer.byteLength(d.field + d.code + d.message), 0);

describe('error text bounds', () => {
  it('leaves short texts alone', () => {
    const details = [{ field: 'tagName', code: 'required', message: 'tagName is required' }];
    expect(boundErrorText('invalid body: tagName is required', details)).toEqual({ message: 'invalid body: tagName is required', details });
  });

  it('cuts long texts on a character boundary, with an ellipsis', () => {
    expect(truncateUtf8('x'.repeat(100), 10)).toBe('xxxxxxx…');
    const cut = truncateUtf8('é'.repeat(100), 10);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(10);
    expect(cut).toBe('ééé…');
  });

  it('keeps at most 1 KiB of text and at most 20 details, in order', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => ({ field: `routeKeys[${i}]`, code: 'routeKey', message: `routeKeys[${i}] ${'Q'.repeat(i)}` }));
    const bounded = boundErrorText('Q'.repeat(700_000), many);
    expect(bytesOf(bounded)).toBeLessThanOrEqual(ERROR_TEXT_MAX_BYTES);
    expect(bounded.details.length).toBeGreaterThan(0);
    expect(bounded.details[0].field).toBe('routeKeys[0]');
    const small = Array.from({ length: 100 }, (_, i) => ({ field: 'f', code: 'c', message: String(i) }));
    expect(boundErrorText('m', small).details).toHaveLength(ERROR_MAX_DETAILS);
  });

  it('applies to every ServiceError, from code or from the wire', () => {
    const error = ServiceError.badRequest('REQUEST.VALIDATION_FAILED', `unknown permission ${'Q'.repeat(700_000)}`);
    expect(Buffer.byteLength(error.message)).toBeLessThanOrEqual(ERROR_TEXT_MAX_BYTES);
    const fromWire = ServiceError.fromShape({ status: 400, code: 'X', message: 'm', details: [{ field: 'a', code: 'b', message: 'Q'.repeat(10_000) }] });
    expect(bytesOf(fromWire)).toBeLessThanOrEqual(ERROR_TEXT_MAX_BYTES);
  });

  it("keeps a script diagnostic's line and column, and only when both are integers", () => {
    const diagnostic = { field: 'code', code: 'FORBIDDEN_LOOP', message: 'for loops are not allowed', line: 3, column: 5 };
    expect(boundErrorText('m', [diagnostic]).details).toEqual([diagnostic]);
    const forged = { field: 'code', code: 'X', message: 'm', line: 'Q'.repeat(10_000), column: 1 } as unknown as ErrorDetail;
    expect(boundErrorText('m', [forged]).details).toEqual([{ field: 'code', code: 'X', message: 'm' }]);
    expect(ServiceError.fromShape({ status: 400, code: 'SCRIPT.INVALID', message: 'm', details: [diagnostic] }).details).toEqual([diagnostic]);
  });
});
