import { describe, expect, it } from 'vitest';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { generateSecret, signPayload, webhookHeaders } from '../../../functions/webhooks/transport/signature.ts';

const body = JSON.stringify({
  id: '0b9f1f7e-2c1a-4a39-9a8e-5d1c2b3a4f50',
  type: 'field.stop.delivered',
  timestamp: '2025-03-01T12:00:00.000Z',
  data: { stopId: 's-1', note: 'ñandú ✓' },
});
const msgId = '0b9f1f7e-2c1a-4a39-9a8e-5d1c2b3a4f50';
const now = () => Math.floor(Date.now() / 1000);

// Two implementations written independently of ours and of each other's call sites.
const verifiers = {
  standardwebhooks: (secret: string, payload: string, headers: Record<string, string>) =>
    new StandardWebhook(secret).verify(payload, headers),
  svix: (secret: string, payload: string, headers: Record<string, string>) => new SvixWebhook(secret).verify(payload, headers),
};

function signed(secrets: string[], timestamp = now(), payload = body) {
  return webhookHeaders(msgId, timestamp, signPayload(secrets, msgId, timestamp, payload));
}

describe.each(Object.entries(verifiers))('verified by %s', (_name, verify) => {
  it('accepts one secret', () => {
    const secret = generateSecret();
    expect(verify(secret, body, signed([secret]))).toEqual(JSON.parse(body));
  });

  it('accepts either secret of a rotation pair', () => {
    const [newer, older] = [generateSecret(), generateSecret()];
    const headers = signed([newer, older]);
    expect(verify(newer, body, headers)).toEqual(JSON.parse(body));
    expect(verify(older, body, headers)).toEqual(JSON.parse(body));
  });

  it('refuses a tampered body', () => {
    const secret = generateSecret();
    expect(() => verify(secret, body.replace('s-1', 's-2'), signed([secret]))).toThrow();
  });

  it('refuses a wrong secret', () => {
    expect(() => verify(generateSecret(), body, signed([generateSecret()]))).toThrow();
  });

  it('refuses a timestamp 301 s off in either direction', () => {
    const secret = generateSecret();
    expect(() => verify(secret, body, signed([secret], now() - 301))).toThrow();
    expect(() => verify(secret, body, signed([secret], now() + 301))).toThrow();
  });
});

describe('signPayload', () => {
  it('gives one v1 entry per secret, newest first', () => {
    const [newer, older] = [generateSecret(), generateSecret()];
    const ts = now();
    const both = signPayload([newer, older], msgId, ts, body).split(' ');
    expect(both).toHaveLength(2);
    expect(both[0]).toBe(signPayload([newer], msgId, ts, body));
    expect(both[1]).toBe(signPayload([older], msgId, ts, body));
    for (const entry of both) expect(entry).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('refuses an empty secret list', () => {
    expect(() => signPayload([], msgId, now(), body)).toThrow();
  });
});

describe('webhookHeaders', () => {
  it('carries the Standard Webhooks headers', () => {
    expect(webhookHeaders(msgId, 1700000000, 'v1,abc')).toEqual({
      'webhook-id': msgId,
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,abc',
      'content-type': 'application/json',
      'user-agent': 'delivery-ops-webhooks/1.0',
    });
  });
});

describe('generateSecret', () => {
  it('is whsec_ plus 32 random bytes in base64', () => {
    const secrets = Array.from({ length: 50 }, generateSecret);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
  });

  it('spreads its bytes (no constant or low-entropy output)', () => {
    const bytes = Buffer.concat(Array.from({ length: 64 }, () => Buffer.from(generateSecret().slice(6), 'base64')));
    expect(new Set(bytes).size).toBeGreaterThan(200);
  });
});
