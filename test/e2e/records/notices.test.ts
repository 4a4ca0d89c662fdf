import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importWorker } from '../../../functions/jobs.ts';
import { drainNotices } from '../../../functions/records/notice-drain.ts';
import { NOTICE_ORIGIN } from '../../../functions/records/notices.ts';
import { pointAtProviderFake } from '../../../infra/local/billing-provider.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../../shared/http/edge-headers.ts';
import { importQueue, setImportQueue, type ImportQueueMessage, type NoticeDrainMessage } from '../../../shared/ports/import-queue.ts';
import { LocalSecrets, setSecrets } from '../../../shared/ports/secrets.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { keys } from '../../../shared/table/keys.ts';
import { TestTenant } from '../../support/api.ts';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';
import { eventually } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';
import { RUT } from '../integrations/support.ts';
import { connectProvider, runImport, stock, variant } from './support.ts';

const stack = useLocalStack();
const COMPANY = { clientCode: RUT.a, clientName: 'Frutas del Maule SpA' };
const catalogue = {
  variants: Array.from({ length: 5 }, (_, i) => variant(i + 1)),
  stocks: Array.from({ length: 5 }, (_, i) => stock(i + 1, 1, 10)),
};
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:delivery-ops-origin-verify-AbCdEf';
const ORIGIN_SECRET = 'origin-secret-value-for-the-notice-tests-0123';

let fake: ProviderFake;
const secrets = new LocalSecrets();
beforeAll(async () => {
  fake = await startProviderFake();
  fake.addCompany(COMPANY, catalogue);
  setSecrets(secrets);
  pointAtProviderFake(fake, secrets);
});
afterAll(async () => {
  setSecrets(undefined);
  await fake?.stop();
});

const notify = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${stack().baseUrl}/v1/integrations/provider/notifications`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
/** Only notices read one variant or one variant's stock (imports page through whole lists). */
const noticeReads = () => fake.requests.filter((r) => r.path.includes('variantid=') || /^\/v1\/variants\/\d+\.json/.test(r.path)).length;
const pendingNotices = async () =>
  (
    await table().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.providerNoticePartition(NOTICE_ORIGIN, COMPANY.clientCode), ':prefix': keys.providerNoticePrefix },
        Select: 'COUNT',
      }),
    )
  ).Count;

/** Waits for the next minute when less than 20 s of this one are left. */
const fresherMinute = async () => {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
};

describe('provider notices cost the attacker, not the tenants', () => {
  beforeAll(async () => {
    // Three connections of the company in two tenants, each imported once (so notices find it).
    for (const count of [2, 1]) {
      const tenant = await TestTenant.create(stack());
      const admin = await tenant.member('admin');
      for (let i = 0; i < count; i++) {
        const connection = await connectProvider(tenant, admin, fake, COMPANY.clientCode);
        expect((await runImport(tenant, admin, connection.id, { streams: ['variants'] })).state).toBe('succeeded');
      }
    }
  }, 300_000);

  it('answers 1,000 notices with no provider call, then reads at most 3 a minute for their one network (of the company’s 10), whatever its connections', async () => {
    const real = importQueue();
    const sent: { message: ImportQueueMessage; delay?: number }[] = [];
    // The worker is held back while the notices arrive: whatever the provider sees then, the requests asked for.
    setImportQueue({ send: async (message, delay) => void sent.push({ message, delay }) });
    process.env.PROVIDER_NOTICE_RATE_LIMIT_PER_MINUTE = '5000';
    const before = noticeReads();
    try {
      // 500 repeats of one notice and 500 notices of different variants' stock, 10 at a time.
      const bodies = Array.from({ length: 1000 }, (_, i) =>
        i % 2 === 0 ? { cpnId: COMPANY.clientCode, topic: 'stock', resource: '/v2/stocks.json?variant=1&office=1', resourceId: '1' } : { cpnId: COMPANY.clientCode, topic: 'stock', resourceId: String(1000 + i) },
      );
      for (let i = 0; i < bodies.length; i += 10) {
        const answers = await Promise.all(bodies.slice(i, i + 10).map((body) => notify(body)));
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 202));
      }
    } finally {
      setImportQueue(real);
      delete process.env.PROVIDER_NOTICE_RATE_LIMIT_PER_MINUTE;
    }
    expect(noticeReads()).toBe(before);
    // Repeats within 60 s are one notice; one drain message for the company, whatever the notices.
    expect(await pendingNotices()).toBe(501);
    expect(sent.map((s) => s.message)).toEqual([{ kind: 'notices', origin: NOTICE_ORIGIN, clientCode: COMPANY.clientCode }]);

    // The worker reads: 3 provider reads (the one network's share, issue 29), then the message waits for the next minute.
    const queue = stack().imports.queue;
    await real.send(sent[0]!.message);
    await eventually(async () => ({ reads: noticeReads() - before, delayed: queue.depth().delayed }), (s) => s.delayed === 1);
    expect(noticeReads() - before).toBe(3);
    expect(await pendingNotices()).toBeGreaterThan(490);

    // The next minute's drain reads 3 more, and never more, whatever is pending.
    const message = sent[0]!.message as NoticeDrainMessage;
    const nextMinute = new Date(Date.now() + 60_000);
    const outcome = await runAs(importWorker.name, () => drainNotices(message, nextMinute));
    expect(outcome).toBe('budget_spent');
    expect(noticeReads() - before).toBe(6);
  }, 300_000);

  it('limits per viewer address (CloudFront-Viewer-Address), trusted only behind the origin check', async () => {
    process.env.PROVIDER_NOTICE_RATE_LIMIT_PER_MINUTE = '2';
    const body = { cpnId: '11111111-1', topic: 'stock', resourceId: '5' };
    try {
      // The check on, as in the cloud: two viewers behind one CloudFront edge (the same socket here).
      secrets.set(SECRET_ARN, ORIGIN_SECRET);
      process.env.ORIGIN_VERIFY_SECRET_ARN = SECRET_ARN;
      const viewer = (address: string) => ({ [ORIGIN_VERIFY_HEADER]: ORIGIN_SECRET, [VIEWER_ADDRESS_HEADER]: address });
      // The limit counts in one-minute windows: three requests that straddle a minute's end (a
      // loaded run failed so) are two windows. Start them early in a minute.
      await fresherMinute();
      const first = [];
      for (let i = 0; i < 3; i++) first.push((await notify(body, viewer('198.51.100.7:41000'))).status);
      expect(first).toEqual([202, 202, 429]);
      expect((await notify(body, viewer('[2001:db8::7]:41001'))).status).toBe(202);
      expect((await notify(body, viewer('198.51.100.8:41002'))).status).toBe(202);
      // Without the origin secret nothing passes, whatever address it names.
      expect((await notify(body, { [VIEWER_ADDRESS_HEADER]: '203.0.113.50:1' })).status).toBe(403);
    } finally {
      delete process.env.ORIGIN_VERIFY_SECRET_ARN;
    }
    try {
      // The check off (the local stack): a caller's own header is not believed; its socket counts.
      await fresherMinute();
      const forged = [];
      for (let i = 0; i < 3; i++) forged.push((await notify(body, { [VIEWER_ADDRESS_HEADER]: `203.0.113.${i + 1}:1` })).status);
      expect(forged[2]).toBe(429);
    } finally {
      delete process.env.PROVIDER_NOTICE_RATE_LIMIT_PER_MINUTE;
    }
  });
});
