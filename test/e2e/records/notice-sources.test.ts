import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importWorker } from '../../../functions/jobs.ts';
import { drainNotices } from '../../../functions/records/notice-drain.ts';
import { NOTICE_ORIGIN, noticeSource } from '../../../functions/records/notices.ts';
import { pointAtProviderFake } from '../../../infra/local/billing-provider.ts';
import { runAs } from '../../../shared/aws-calls/identity.ts';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '../../../shared/http/edge-headers.ts';
import { importQueue, setImportQueue, type ImportQueueMessage } from '../../../shared/ports/import-queue.ts';
import { LocalSecrets, setSecrets } from '../../../shared/ports/secrets.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';
import { useLocalStack } from '../../support/stack.ts';
import { RUT } from '../integrations/support.ts';
import { connectProvider, runImport, stock, variant } from './support.ts';

const stack = useLocalStack();
const COMPANY = { clientCode: RUT.b, clientName: 'Transportes Biobío Ltda.' };
/** A second company, so the order test meets no notices the flood left pending. */
const QUIET = { clientCode: RUT.k, clientName: 'Distribuidora Grande SpA' };
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:delivery-ops-origin-verify-AbCdEf';
const ORIGIN_SECRET = 'origin-secret-value-for-the-notice-source-tests-0123';

let fake: ProviderFake;
const secrets = new LocalSecrets();
beforeAll(async () => {
  fake = await startProviderFake();
  for (const company of [COMPANY, QUIET]) fake.addCompany(company, { variants: Array.from({ length: 5 }, (_, i) => variant(i + 1)), stocks: [stock(1, 1, 10)] });
  setSecrets(secrets);
  pointAtProviderFake(fake, secrets);
  secrets.set(SECRET_ARN, ORIGIN_SECRET);
});
afterAll(async () => {
  setSecrets(undefined);
  await fake?.stop();
});

/** As in the cloud: the viewer's address comes from CloudFront, behind the origin check (on only for these requests). */
const notify = async (body: unknown, viewer: string) => {
  process.env.ORIGIN_VERIFY_SECRET_ARN = SECRET_ARN;
  try {
    return await fetch(`${stack().baseUrl}/v1/integrations/provider/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [ORIGIN_VERIFY_HEADER]: ORIGIN_SECRET, [VIEWER_ADDRESS_HEADER]: viewer },
      body: JSON.stringify(body),
    });
  } finally {
    delete process.env.ORIGIN_VERIFY_SECRET_ARN;
  }
};
// Of the test's own notices only: a drain an earlier test left waiting for the next minute reads
// its company's notices whenever that minute comes (at load, in the middle of the next test).
const stockReads = (ids: number[]) => fake.requests.filter((r) => ids.some((id) => new RegExp(`variantid=${id}(?!\\d)`).test(r.path))).length;
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
const variantReads = (id: number) => fake.requests.filter((r) => r.path.startsWith(`/v1/variants/${id}.json`)).length;

describe('provider notices: sources and order (issue 29)', () => {
  let tenant: TestTenant;
  let admin: TestMember;

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    admin = await tenant.member('admin');
    for (const company of [COMPANY, QUIET]) {
      const connection = await connectProvider(tenant, admin, fake, company.clientCode);
      expect((await runImport(tenant, admin, connection.id, { streams: ['variants'] })).state).toBe('succeeded');
    }
  }, 120_000);

  it('counts an IPv6 viewer by its /64 and an IPv4 viewer by its address', async () => {
    process.env.PROVIDER_NOTICE_RATE_LIMIT_PER_MINUTE = '2';
    try {
      const body = { cpnId: '11111111-1', topic: 'stock', resourceId: '5' };
      // Three hosts of one /64: one network, two notices a minute.
      const statuses = [];
      for (const host of ['1', '2', 'abcd:1']) statuses.push((await notify(body, `[2001:db8:5:6::${host}]:4100`)).status);
      expect(statuses).toEqual([202, 202, 429]);
      expect((await notify(body, '[2001:db8:5:7::1]:4100')).status).toBe(202);
    } finally {
      delete process.env.PROVIDER_NOTICE_RATE_LIMIT_PER_MINUTE;
    }
    expect(noticeSource('2001:db8:5:6::1')).toBe('2001:db8:5:6::/64');
    expect(noticeSource('[2001:DB8:5:6:ffff:1:2:3]')).toBe('2001:db8:5:6::/64');
    expect(noticeSource('::ffff:198.51.100.7')).toBe('198.51.100.7/32');
    expect(noticeSource('198.51.100.7')).toBe('198.51.100.7/32');
  });

  it('a party flooding a company’s notices from one network spends its share, not the company’s minute: the provider’s later notice is read in the same drain', async () => {
    const real = importQueue();
    const sent: ImportQueueMessage[] = [];
    setImportQueue({ send: async (message) => void sent.push(message) });
    const [stockBefore, variantBefore] = [stockReads(range(5000, 20)), variantReads(3)];
    try {
      // 20 made-up stock notices from hosts of one /64, then the provider's variant notice from its own address.
      for (let i = 0; i < 20; i++) expect((await notify({ cpnId: COMPANY.clientCode, topic: 'stock', resourceId: String(5000 + i) }, `[2001:db8:9:9::${i + 1}]:443`)).status).toBe(202);
      expect((await notify({ cpnId: COMPANY.clientCode, topic: 'variant', resource: '/v2/variants/3.json', resourceId: '3' }, '198.51.100.20:443')).status).toBe(202);
    } finally {
      setImportQueue(real);
    }
    expect(sent).toEqual([{ kind: 'notices', origin: NOTICE_ORIGIN, clientCode: COMPANY.clientCode }]);
    const outcome = await runAs(importWorker.name, () => drainNotices({ kind: 'notices', origin: NOTICE_ORIGIN, clientCode: COMPANY.clientCode }));
    // The flood's network read three of its notices, oldest first; the provider's was read too; the rest wait.
    expect(stockReads(range(5000, 20)) - stockBefore).toBe(3);
    expect(variantReads(3) - variantBefore).toBe(1);
    expect(outcome).toBe('budget_spent');
  }, 240_000);

  it('reads a company’s notices in the order they arrived, not by topic and resource', async () => {
    process.env.PROVIDER_NOTICE_READS_PER_MINUTE = '1';
    const real = importQueue();
    setImportQueue({ send: async () => undefined });
    const [stockBefore, variantBefore] = [stockReads(range(6000, 3)), variantReads(4)];
    try {
      // The variant notice first ("variant#4" sorts after every "stock#…" key).
      expect((await notify({ cpnId: QUIET.clientCode, topic: 'variant', resourceId: '4' }, '198.51.100.30:443')).status).toBe(202);
      for (let i = 0; i < 3; i++) expect((await notify({ cpnId: QUIET.clientCode, topic: 'stock', resourceId: String(6000 + i) }, '198.51.100.30:443')).status).toBe(202);
      await runAs(importWorker.name, () => drainNotices({ kind: 'notices', origin: NOTICE_ORIGIN, clientCode: QUIET.clientCode }));
    } finally {
      setImportQueue(real);
      delete process.env.PROVIDER_NOTICE_READS_PER_MINUTE;
    }
    expect([variantReads(4) - variantBefore, stockReads(range(6000, 3)) - stockBefore]).toEqual([1, 0]);
  }, 240_000);
});
