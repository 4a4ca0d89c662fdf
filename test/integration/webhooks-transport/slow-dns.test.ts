import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendAttempt, type AttemptResult } from '../../../functions/webhooks/transport/send-attempt.ts';
import { systemResolver } from '../../../functions/webhooks/transport/resolver.ts';
import { DnsStandIn } from './dns-stand-in.ts';
import { closeAll, startReceiver } from './receivers.ts';

// One tenant's receivers sit behind a name server that never answers; another tenant's answer at once.
const dns = new DnsStandIn((query) => (query.name.endsWith('.slow-tenant.example-receiver.com') ? 'silent' : ['127.0.0.1']));
const previous = process.env.WEBHOOK_DNS_SERVERS;

beforeAll(async () => {
  await dns.start();
  process.env.WEBHOOK_DNS_SERVERS = dns.address;
});
afterAll(async () => {
  if (previous === undefined) delete process.env.WEBHOOK_DNS_SERVERS;
  else process.env.WEBHOOK_DNS_SERVERS = previous;
  await dns.stop();
  await closeAll();
});

const attempt = (url: string) => sendAttempt({ url, body: '{}', headers: { 'content-type': 'application/json' }, allowPrivate: true, resolver: systemResolver });

describe('the attempts’ resolver', () => {
  it('answers another tenant’s lookup while 16 lookups wait on a silent name server', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const settled: AttemptResult[] = [];
    const slow = Array.from({ length: 16 }, (_, i) => attempt(`https://hook-${i}.slow-tenant.example-receiver.com/in`).then((r) => void settled.push(r)));

    const fast = await attempt(`http://hooks.fast-tenant.example-receiver.com:${receiver.port}/in`);

    expect(fast).toMatchObject({ outcome: 'success', statusCode: 204 });
    expect(settled).toHaveLength(0); // every slow lookup is still waiting
    expect(dns.queries).toContainEqual({ name: 'hooks.fast-tenant.example-receiver.com', type: 'A' });
    await Promise.all(slow);
    expect(new Set(settled.map((r) => r.outcome))).toEqual(new Set(['dns_failure']));
    expect(settled[0].detail).toContain('ETIMEOUT');
  }, 240_000);

  it('resolves localhost without asking DNS', async () => {
    const before = dns.queries.length;
    expect(await systemResolver.resolve('localhost')).toEqual(['127.0.0.1', '::1']);
    expect(dns.queries.length).toBe(before);
  });
});
