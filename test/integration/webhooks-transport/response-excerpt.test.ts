import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES, sendAttempt } from '../../../functions/webhooks/transport/send-attempt.ts';
import { closeAll, startReceiver } from './receivers.ts';

afterEach(closeAll);

const post = (port: number) => sendAttempt({ url: `http://127.0.0.1:${port}/`, body: '{}', headers: { 'content-type': 'application/json' }, allowPrivate: true });

describe('the receiver’s answer in the attempt result (decisions 5: responseExcerpt)', () => {
  it('keeps the first 256 bytes as text, with control characters removed', async () => {
    const text = `{"error":"bad\u0000\u001b[31m\r\n\tsignature\u007f\u0085"}`;
    const receiver = await startReceiver((_req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end(text + 'x'.repeat(600)));
    const result = await post(receiver.port);
    expect(result.outcome).toBe('http_status');
    const expected = `{"error":"bad[31msignature"}` + 'x'.repeat(256 - Buffer.byteLength(text));
    expect(result.responseExcerpt).toBe(expected);
  });

  it('never splits a character at the 256th byte, even from a body sent a byte at a time', async () => {
    const body = Buffer.from(`a${'é'.repeat(200)}`);
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200);
      for (const byte of body) res.write(Buffer.from([byte]));
      res.end();
    });
    const result = await post(receiver.port);
    expect(result.outcome).toBe('success');
    // 'a' then 127 two-byte characters: 255 bytes; the 128th would need bytes 256 and 257.
    expect(result.responseExcerpt).toBe(`a${'é'.repeat(127)}`);
    expect(Buffer.byteLength(result.responseExcerpt!)).toBe(255);
  });

  it('is exactly 256 bytes when the cut falls between characters', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(503).end('é'.repeat(200)));
    expect((await post(receiver.port)).responseExcerpt).toBe('é'.repeat(128));
  });

  it('is null without a body, and a short body is kept whole', async () => {
    const empty = await startReceiver((_req, res) => res.writeHead(204).end());
    expect((await post(empty.port)).responseExcerpt).toBeNull();
    const short = await startReceiver((_req, res) => res.writeHead(200).end('ok ✓'));
    expect((await post(short.port)).responseExcerpt).toBe('ok ✓');
  });

  it('keeps the start of an answer too large to read whole', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(500);
      res.write('Internal error: ');
      res.end('z'.repeat(MAX_RESPONSE_BYTES + 10));
    });
    const result = await post(receiver.port);
    expect(result.outcome).toBe('response_too_large');
    expect(result.responseExcerpt).toBe(`Internal error: ${'z'.repeat(256 - 16)}`);
  });

  it('is null when no answer came', async () => {
    const receiver = await startReceiver((req) => req.socket.destroy());
    const result = await post(receiver.port);
    expect(result.statusCode).toBeNull();
    expect(result.responseExcerpt).toBeNull();
  });
});
