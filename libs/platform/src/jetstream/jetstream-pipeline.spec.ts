import { type MsgHdrs, headers } from 'nats';
import { JetStreamPublishError, publishHeaders } from './jetstream-pipeline';

/** What nats.js's publish writes of a message's headers (MsgHdrsImpl.encode, not in the MsgHdrs type). */
const bytesOf = (h: MsgHdrs): Buffer => Buffer.from((h as unknown as { encode(): Uint8Array }).encode());

/** nats.js's own headers with the same values, encoded. */
function natsHeaders(msgId: string | undefined, expectedStream: string | undefined): Buffer {
  const h = headers();
  if (msgId !== undefined) h.set('Nats-Msg-Id', msgId);
  if (expectedStream) h.set('Nats-Expected-Stream', expectedStream);
  return bytesOf(h);
}

describe('publishHeaders', () => {
  it.each([
    ['0123456789ab', 'HITS'],
    ['0123456789ab', undefined],
    [undefined, 'HITS'],
    ['', 'HITS'],
    ['  spaced id  ', 'ÉTÉ-stream'],
  ])('writes the bytes nats.js writes for Nats-Msg-Id %j and Nats-Expected-Stream %j', (msgId, stream) => {
    expect(bytesOf(publishHeaders(msgId, stream)!)).toEqual(natsHeaders(msgId, stream));
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
