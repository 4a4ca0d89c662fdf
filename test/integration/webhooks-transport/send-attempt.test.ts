import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Resolver } from '../../../functions/webhooks/transport/resolver.ts';
import {
  MAX_RESPONSE_BYTES,
  sendAttempt,
  type AttemptRequest,
} from '../../../functions/webhooks/transport/send-attempt.ts';
import { generateSecret, signPayload, webhookHeaders } from '../../../functions/webhooks/transport/signature.ts';
import { closeAll, closedPort, startReceiver, startSelfSignedReceiver } from './receivers.ts';

afterEach(closeAll);

const body = '{"id":"7d4a3c1e-0000-4000-8000-000000000001","type":"webhook.test","data":{"message":"hi ✓"}}';

function request(url: string, extra: Partial<AttemptRequest> = {}): AttemptRequest {
  return { url, body, headers: { 'content-type': 'application/json' }, allowPrivate: true, ...extra };
}

function fixedResolver(answer: string[] | Error): Resolver & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async resolve(hostname) {
      calls.push(hostname);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

describe('sendAttempt against real receivers on 127.0.0.1', () => {
  it('2xx is success, and the receiver gets the exact raw body and signed headers', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const secret = generateSecret();
    const ts = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders('msg_1', ts, signPayload([secret], 'msg_1', ts, body));

    const result = await sendAttempt(request(`http://127.0.0.1:${receiver.port}/hooks/in?x=1`, { headers }));

    expect(result).toMatchObject({ outcome: 'success', statusCode: 204, retryAfterSeconds: null });
    expect(Number.isInteger(result.durationMs)).toBe(true);
    expect(Date.parse(result.startedAt)).not.toBeNaN();
    const [got] = receiver.received;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hooks/in?x=1');
    expect(got.rawBody).toBe(body);
    for (const [name, value] of Object.entries(headers)) expect(got.headers[name]).toBe(value);
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(new Webhook(secret).verify(got.rawBody, got.headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it.each([400, 404, 410, 500, 502])('status %i is http_status', async (status) => {
    const receiver = await startReceiver((_req, res) => res.writeHead(status).end('nope'));
    const result = await sendAttempt(request(`http://127.0.0.1:${receiver.port}/`));
    expect(result).toMatchObject({ outcome: 'http_status', statusCode: status, retryAfterSeconds: null });
    expect(result.detail).toContain(String(status));
  });

  it('503 with Retry-After: 120 gives retryAfterSeconds 120; a 500 with the header ignores it', async () => {
    const busy = await startReceiver((_req, res) => res.writeHead(503, { 'retry-after': '120' }).end());
    const broken = await startReceiver((_req, res) => res.writeHead(500, { 'retry-after': '120' }).end());
    expect(await sendAttempt(request(`http://127.0.0.1:${busy.port}/`))).toMatchObject({
      outcome: 'http_status',
      statusCode: 503,
      retryAfterSeconds: 120,
    });
    expect((await sendAttempt(request(`http://127.0.0.1:${broken.port}/`))).retryAfterSeconds).toBeNull();
  });

  it('429 with an HTTP-date Retry-After gives the seconds until then', async () => {
    const when = new Date(Date.now() + 90_000).toUTCString();
    const receiver = await startReceiver((_req, res) => res.writeHead(429, { 'retry-after': when }).end());
    const result = await sendAttempt(request(`http://127.0.0.1:${receiver.port}/`));
    expect(result.outcome).toBe('http_status');
    expect(result.retryAfterSeconds).toBeGreaterThanOrEqual(88);
    expect(result.retryAfterSeconds).toBeLessThanOrEqual(91);
  });

  it('a receiver slower than the time limit is a timeout', async () => {
    // It never answers, so only the limit can end the attempt: no upper bound on the clock needed
    // (one of 3 s failed on a loaded machine whose timer fired late, issue 37).
    const receiver = await startReceiver(() => undefined);
    const result = await sendAttempt(request(`http://127.0.0.1:${receiver.port}/`, { timeoutMs: 1_000 }));
    expect(result).toMatchObject({ outcome: 'timeout', statusCode: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(950);
  });

  it('the limit covers the body too: headers on time, body trickling past it is a timeout', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const result = await sendAttempt(request(`http://127.0.0.1:${receiver.port}/`, { timeoutMs: 800 }));
    expect(result).toMatchObject({ outcome: 'timeout', statusCode: 200 });
  });

  // The default itself (10 s) is config.webhookAttemptTimeoutMs's: test/unit/config-defaults.test.ts.
  it('the default limit lets a receiver taking 1.5 s succeed', async () => {
    expect(MAX_RESPONSE_BYTES).toBe(65_536);
    const receiver = await startReceiver((_req, res) => setTimeout(() => res.end('ok'), 1_500).unref());
    const result = await sendAttempt(request(`http://127.0.0.1:${receiver.port}/`));
    expect(result).toMatchObject({ outcome: 'success', statusCode: 200 });
    expect(result.durationMs).toBeGreaterThanOrEqual(1_400);
  });

  it('nothing listening is connection_refused', async () => {
    const port = await closedPort();
    expect(await sendAttempt(request(`http://127.0.0.1:${port}/`))).toMatchObject({
      outcome: 'connection_refused',
      statusCode: null,
    });
  });

  it('a receiver that drops the socket is connection_reset', async () => {
    const receiver = await startReceiver((req) => req.socket.destroy());
    expect(await sendAttempt(request(`http://127.0.0.1:${receiver.port}/`))).toMatchObject({
      outcome: 'connection_reset',
      statusCode: null,
    });
  });

  it('a name that does not resolve is dns_failure', async () => {
    const resolver = fixedResolver(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    const result = await sendAttempt(request('https://gone.example-receiver.com/', { resolver, allowPrivate: false }));
    expect(result).toMatchObject({ outcome: 'dns_failure', statusCode: null });
    expect(result.detail).toContain('ENOTFOUND');
    const empty = await sendAttempt(request('https://gone.example-receiver.com/', { resolver: fixedResolver([]) }));
    expect(empty.outcome).toBe('dns_failure');
  });

  it('a public-looking name resolving to a private address is destination_blocked', async () => {
    const resolver = fixedResolver(['10.0.0.5']);
    const result = await sendAttempt(request('https://blocked.example-receiver.com/', { resolver, allowPrivate: false }));
    expect(result).toMatchObject({ outcome: 'destination_blocked', statusCode: null });
    expect(result.detail).toContain('10.0.0.5');
  });

  it('an RFC 6145 IPv4-translated answer (::ffff:0:a00:1, i.e. 10.0.0.1) is destination_blocked, not a crash', async () => {
    for (const answer of ['::ffff:0:a00:1', '::ffff:0:7f00:1', '::ffff:0:808:808']) {
      const result = await sendAttempt(request('https://translated.example-receiver.com/', { resolver: fixedResolver([answer]), allowPrivate: false }));
      expect(result.outcome, answer).toBe('destination_blocked');
      expect(result.detail).toContain('IPv4-translated');
    }
  });

  it('one bad address among good ones blocks the attempt; so do loopback and a bad URL without allowPrivate', async () => {
    const mixed = fixedResolver(['93.184.216.34', '169.254.169.254']);
    const url = 'https://mixed.example-receiver.com/';
    expect((await sendAttempt(request(url, { resolver: mixed, allowPrivate: false }))).outcome).toBe('destination_blocked');
    const loopback = fixedResolver(['127.0.0.1']);
    expect((await sendAttempt(request(url, { resolver: loopback, allowPrivate: false }))).outcome).toBe('destination_blocked');
    const receiver = await startReceiver((_req, res) => res.end());
    const direct = await sendAttempt(request(`http://127.0.0.1:${receiver.port}/`, { allowPrivate: false }));
    expect(direct.outcome).toBe('destination_blocked');
    expect(receiver.received).toHaveLength(0);
  });

  it('an untrusted (self-signed) certificate is tls_failure', async () => {
    const receiver = await startSelfSignedReceiver((_req, res) => res.end('should not get here'));
    const result = await sendAttempt(request(`https://127.0.0.1:${receiver.port}/`));
    expect(result).toMatchObject({ outcome: 'tls_failure', statusCode: null });
    expect(receiver.received).toHaveLength(0);
  });

  it('TLS goes to the checked address with the URL host name as SNI (and fails on the untrusted certificate)', async () => {
    const receiver = await startSelfSignedReceiver((_req, res) => res.end('should not get here'));
    const resolver = fixedResolver(['127.0.0.1']);
    const result = await sendAttempt(request(`https://receiver.localtest:${receiver.port}/`, { resolver }));
    expect(result.outcome).toBe('tls_failure');
    expect(receiver.serverNames).toEqual(['receiver.localtest']);
  });

  it('a redirect is http_status with its code and is not followed', async () => {
    const target = await startReceiver((_req, res) => res.end('followed'));
    const redirector = await startReceiver((_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/elsewhere` }).end(),
    );
    const result = await sendAttempt(request(`http://127.0.0.1:${redirector.port}/`));
    expect(result).toMatchObject({ outcome: 'http_status', statusCode: 302 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(target.received).toHaveLength(0);
  });

  it.each([
    ['streamed without a length', false],
    ['with a declared length', true],
  ])('a 1 MiB response %s is response_too_large', async (_label, declare) => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, declare ? { 'content-length': String(1024 * 1024) } : {});
      const chunk = Buffer.alloc(64 * 1024, 'x');
      for (let i = 0; i < 16; i += 1) res.write(chunk);
      res.end();
    });
    const result = await sendAttempt(request(`http://127.0.0.1:${receiver.port}/`));
    expect(result).toMatchObject({ outcome: 'response_too_large', statusCode: 200 });
  });

  it('connects to the checked address, resolving once, with the URL host in the Host header', async () => {
    const receiver = await startReceiver((_req, res) => res.end('ok'));
    const resolver = fixedResolver(['127.0.0.1']);
    const result = await sendAttempt(request(`http://receiver.localtest:${receiver.port}/in`, { resolver }));
    expect(result).toMatchObject({ outcome: 'success', statusCode: 200 });
    expect(resolver.calls).toEqual(['receiver.localtest']);
    expect(receiver.received[0].headers.host).toBe(`receiver.localtest:${receiver.port}`);
  });

  it('a named local receiver on http is refused when it resolves to anything but loopback', async () => {
    const resolver = fixedResolver(['127.0.0.1', '93.184.216.34']);
    const result = await sendAttempt(request('http://receiver.localtest:4567/in', { resolver }));
    expect(result.outcome).toBe('destination_blocked');
  });
});
