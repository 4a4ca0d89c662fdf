import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * One `v1,<base64>` entry per secret, in the order given (newest first during a rotation grace),
 * so a receiver holding either the old or the new secret accepts the notification.
 */
export function signPayload(secrets: string[], msgId: string, timestampSeconds: number, body: string): string {
  if (secrets.length === 0) throw new Error('signPayload needs at least one secret');
  if (!Number.isInteger(timestampSeconds)) throw new Error('timestampSeconds must be an integer');
  const timestamp = new Date(timestampSeconds * 1000);
  return secrets.map((secret) => new Webhook(secret).sign(msgId, timestamp, body)).join(' ');
}

export function webhookHeaders(msgId: string, timestampSeconds: number, signature: string): Record<string, string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signature,
    'content-type': 'application/json',
    'user-agent': 'delivery-ops-webhooks/1.0',
  };
}
