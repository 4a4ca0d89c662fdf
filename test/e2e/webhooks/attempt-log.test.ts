import { describe, expect, it } from 'vitest';
import { useWebhookWorld } from './world.ts';

// One second between attempts: a Retry-After of 60 is held to twice that (schedule.test.ts).
const world = useWebhookWorld({ retryDelay: '1' });
const { receiver } = world;

interface LogEntry {
  attemptNo: number;
  statusCode: number | null;
  retryAfterSeconds: number | null;
  responseExcerpt?: string | null;
}

/** A destination whose receiver answers the attempts in turn, and its test notification once it succeeded. */
const logOf = async (path: string, answers: { status: number; headers?: Record<string, string>; body?: string }[]): Promise<{ deliveryId: string; log: LogEntry[] }> => {
  let calls = 0;
  const previous = receiver.reply;
  receiver.reply = (r) => (r.path.endsWith(`/${path}`) ? answers[Math.min(calls++, answers.length - 1)] : previous(r));
  const { endpoint } = await world.createEndpoint(['distribution.order.created'], path);
  const delivery = await world.sendTest(endpoint.id);
  const done = await world.readUntil(`/v1/webhooks/deliveries/${delivery.id}`, (r) => r.body.state === 'succeeded', 120_000);
  return { deliveryId: delivery.id, log: done.body.attemptLog };
};

describe('the attempt log (decisions 5)', () => {
  it('keeps the receiver’s Retry-After in seconds, and null without the header', async () => {
    const { log } = await logOf('busy', [
      { status: 503, headers: { 'retry-after': '60' } },
      { status: 429, headers: { 'retry-after': new Date(Date.now() + 120_000).toUTCString() } },
      { status: 500, headers: { 'retry-after': '30' } },
      { status: 200 },
    ]);
    expect(log.map((e) => e.statusCode)).toEqual([503, 429, 500, 200]);
    expect(log[0].retryAfterSeconds).toBe(60);
    // An HTTP date two minutes ahead, read a little later: seconds left, rounded up.
    expect(log[1].retryAfterSeconds).toBeGreaterThan(100);
    expect(log[1].retryAfterSeconds).toBeLessThanOrEqual(120);
    // Only 429 and 503 carry a Retry-After that counts; a 500's header is not kept.
    expect(log[2].retryAfterSeconds).toBeNull();
    expect(log[3].retryAfterSeconds).toBeNull();
  }, 240_000);

  it('keeps the start of the receiver’s answer for admins only', async () => {
    const { deliveryId, log } = await logOf('talkative', [
      { status: 400, body: `{"error":"invalid signature"}\r\n${'-'.repeat(300)}` },
      { status: 204 },
    ]);
    expect(log[0].responseExcerpt).toBe(`{"error":"invalid signature"}${'-'.repeat(256 - 31)}`);
    expect(log[1].responseExcerpt).toBeNull();
    for (const role of ['operator', 'viewer'] as const) {
      const member = await world.tenant.member(role);
      const read = await world.tenant.call(member, 'GET', `/v1/webhooks/deliveries/${deliveryId}`);
      expect(read.status).toBe(200);
      expect(read.body.attemptLog).toHaveLength(2);
      for (const entry of read.body.attemptLog) {
        expect(entry).not.toHaveProperty('responseExcerpt');
        expect(entry).toHaveProperty('retryAfterSeconds', null);
      }
    }
  }, 240_000);
});
