import { headers } from 'nats';
import { JetStreamPublishError, publishHeaders } from './jetstream-pipeline';

/** nats.js's own headers with the same values, encoded. */
function natsHeaders(msgId: string | undefined, expectedStream: string | undefined): Uint8Array {
  const h = headers();
  if (msgId !== undefined) h.set('Nats-Msg-Id', msgId);
  if (expectedStream) h.set('Nats-Expected-Stream', expectedStream);
  return h.encode();
}

describe('publishHeaders', () => {
  it.each([
    ['0123456789ab', 'HITS'],
    ['0123456789ab', undefined],
    [undefined, 'HITS'],
    ['', 'HITS'],
    ['  spaced id  ', 'ÉTÉ-stream'],
  ])('writes the bytes nats.js writes for Nats-Msg-Id %j and Nats-Expected-Stream %j', (msgId, stream) => {
    expect(Buffer.from(publishHeaders(msgId, stream)!.encode())).toEqual(Buffer.from(natsHeaders(msgId, stream)));
  });

  it('is undefined without either header', () => {
    expect(publishHeaders(undefined, undefined)).toBeUndefined();
    expect(publishHeaders(undefined, '')).toBeUndefined();
  });

  it('refuses a value with CR or LF, as nats.js does', () => {
    expect(() => natsHeaders('a\r\nb', undefined)).toThrow();
    expect(() => publishHeaders('a\r\nb', undefined)).toThrow(JetStreamPublishError);
    expect(() => publishHeaders('ok', 'a\nb')).toThrow(JetStreamPublishError);
  });
});
