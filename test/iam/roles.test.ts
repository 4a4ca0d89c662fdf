import { beforeAll, describe, expect, it } from 'vitest';
import { sealedReplayOperations } from '../../functions/index.ts';
import { previewSweeper, previewWorker, webhookSweeper, webhookWorker } from '../../functions/jobs.ts';
import { OPERATOR } from '../../shared/aws-calls/identity.ts';
import { encryptionContextKeys, type RecordedCall } from '../../shared/aws-calls/recorder.ts';
import { responseSealContext } from '../../shared/idempotency.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { keys } from '../../shared/table/keys.ts';
import { checkCalls, formatFinding } from './evaluate.ts';
import { PROVIDER_CONTEXT, sharedTemplate } from '../infra/synth-shared.ts';
import type { Template } from './template-names.ts';

/**
 * The roles `cdk synth` gives, evaluated offline against calls shaped exactly as the recorder
 * writes them. The whole-run check (iam.check.ts) covers what the tests did; these pin the
 * decisions that matter most, including calls no test may happen to make.
 */
let template: Template;
beforeAll(async () => {
  // The run's shared synthesis with the billing provider configured (test/infra/synth-shared.ts), without bundling.
  template = (await sharedTemplate(PROVIDER_CONTEXT)) as Template;
}, 180_000);

const key = { kind: 'kms-key', setting: 'WEBHOOK_KMS_KEY_ID' } as const;
const table = { kind: 'dynamodb-table', setting: 'TABLE_NAME' } as const;
const secretContext = { tenantId: 't1', endpointId: 'e1', secretId: 's1' };
const answerContext = responseSealContext({ tenantId: 't1', operationId: 'createWebhookEndpoint', key: 'k1' });

const denied = async (calls: RecordedCall[]) => (await checkCalls(template, calls)).denied.map(formatFinding);

describe('the webhook secrets key', () => {
  it('lets the webhooks function seal a new secret, and seal and replay the answer that reveals it', async () => {
    expect(
      await denied([
        { fn: 'webhooks', action: 'kms:GenerateDataKey', resource: key, context: encryptionContextKeys(secretContext) },
        { fn: 'webhooks', action: 'kms:GenerateDataKey', resource: key, context: encryptionContextKeys(answerContext) },
        { fn: 'webhooks', action: 'kms:Decrypt', resource: key, context: encryptionContextKeys(answerContext) },
      ]),
    ).toEqual([]);
  });

  it('does not let the webhooks function open a stored signing secret, nor the worker a replay record', async () => {
    const refused = await denied([
      { fn: 'webhooks', action: 'kms:Decrypt', resource: key, context: encryptionContextKeys(secretContext) },
      { fn: webhookWorker.name, action: 'kms:Decrypt', resource: key, context: encryptionContextKeys(answerContext) },
    ]);
    expect(refused).toHaveLength(2);
  });

  it('refuses a context with a key more or a key less than a seal context', async () => {
    const refused = await denied([
      { fn: webhookWorker.name, action: 'kms:Decrypt', resource: key, context: encryptionContextKeys({ ...secretContext, extra: 'x' }) },
      { fn: webhookWorker.name, action: 'kms:Decrypt', resource: key, context: encryptionContextKeys({ tenantId: 't1', endpointId: 'e1' }) },
      { fn: webhookWorker.name, action: 'kms:Decrypt', resource: key, context: {} },
    ]);
    expect(refused).toHaveLength(3);
  });
});

describe('sealed idempotent replays', () => {
  const replay = (fn: string, operationId: string): RecordedCall => ({
    fn,
    action: 'kms:Decrypt',
    resource: key,
    context: encryptionContextKeys(responseSealContext({ tenantId: 't1', operationId, key: 'k1' })),
  });

  it('lets each function open the replays of its own sealed operations', async () => {
    const own = [...sealedReplayOperations('webhooks').map((op) => replay('webhooks', op)), ...sealedReplayOperations('integrations').map((op) => replay('integrations', op))];
    expect(own.length).toBeGreaterThanOrEqual(4);
    expect(await denied(own)).toEqual([]);
  });

  it('refuses a function the replays of another function’s operations, and of its own unsealed ones', async () => {
    const [integrationsOp] = sealedReplayOperations('integrations');
    const refused = await denied([replay('webhooks', integrationsOp!), replay('integrations', 'createWebhookEndpoint'), replay('webhooks', 'updateWebhookEndpoint')]);
    expect(refused).toEqual([
      expect.stringContaining(`webhooks: kms:Decrypt`),
      expect.stringContaining(`integrations: kms:Decrypt`),
      expect.stringContaining(`webhooks: kms:Decrypt`),
    ]);
    expect(refused[0]).toContain(integrationsOp);
    expect(refused[1]).toContain('createWebhookEndpoint');
  });
});

describe('table access', () => {
  it('lets the public tracking function read tracking views and nothing else', async () => {
    const view = opsKeys.trackingView('tok').pk;
    expect(await denied([{ fn: 'tracking', action: 'dynamodb:GetItem', resource: table, context: { 'dynamodb:LeadingKeys': [view] } }])).toEqual([]);
    const refused = await denied([
      { fn: 'tracking', action: 'dynamodb:GetItem', resource: table, context: { 'dynamodb:LeadingKeys': [keys.tenant('t1').pk] } },
      { fn: 'tracking', action: 'dynamodb:PutItem', resource: table, context: { 'dynamodb:LeadingKeys': [view] } },
      { fn: 'tracking', action: 'dynamodb:Query', resource: { ...table, index: 'gsi1' }, context: { 'dynamodb:LeadingKeys': ['MEMBER#x'] } },
    ]);
    expect(refused).toHaveLength(3);
  });

  it('lets the sweeper query the due index, enter its audit entries and move a delivery, and write nothing else', async () => {
    const audit = { 'dynamodb:LeadingKeys': [`${keys.tenant('t1').pk}#AUDIT`] };
    const deliveries = { 'dynamodb:LeadingKeys': [keys.delivery('t1', 'd1').pk] };
    expect(
      await denied([
        { fn: webhookSweeper.name, action: 'dynamodb:Query', resource: { ...table, index: 'gsi2' }, context: { 'dynamodb:LeadingKeys': ['DUE#0'] } },
        { fn: webhookSweeper.name, action: 'dynamodb:PutItem', resource: table, context: audit },
        { fn: webhookSweeper.name, action: 'dynamodb:UpdateItem', resource: table, context: deliveries },
      ]),
    ).toEqual([]);
    const refused = await denied([
      { fn: webhookSweeper.name, action: 'dynamodb:PutItem', resource: table, context: { 'dynamodb:LeadingKeys': [keys.tenant('t1').pk] } },
      { fn: webhookSweeper.name, action: 'dynamodb:PutItem', resource: table, context: deliveries },
      { fn: webhookSweeper.name, action: 'dynamodb:UpdateItem', resource: table, context: { 'dynamodb:LeadingKeys': [keys.tenant('t1').pk] } },
      ...['UpdateItem', 'DeleteItem', 'BatchWriteItem', 'ConditionCheckItem'].map((a) => ({ fn: webhookSweeper.name, action: `dynamodb:${a}`, resource: table, context: audit })),
      ...['DeleteItem', 'BatchWriteItem'].map((a) => ({ fn: webhookSweeper.name, action: `dynamodb:${a}`, resource: table, context: deliveries })),
    ]);
    expect(refused).toHaveLength(9);
  });

  it('lets the preview worker and sweeper touch the tenant’s own partition, its audit log, events and the due index, and nothing else', async () => {
    const tenantId = '01a225db-de55-77c8-b00c-dea747a9f87c';
    const own = { 'dynamodb:LeadingKeys': [keys.tenant(tenantId).pk] };
    const audit = { 'dynamodb:LeadingKeys': [`${keys.tenant(tenantId).pk}#AUDIT`] };
    const event = { 'dynamodb:LeadingKeys': [keys.event('e1').pk] };
    const at = (fn: string, action: string, context: Record<string, string[]>, index?: string) => ({ fn, action: `dynamodb:${action}`, resource: index ? { ...table, index } : table, context });
    expect(
      await denied([
        ...['GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem'].map((a) => at(previewWorker.name, a, own)),
        at(previewWorker.name, 'PutItem', audit),
        at(previewWorker.name, 'PutItem', event),
        at(previewSweeper.name, 'Query', { 'dynamodb:LeadingKeys': ['PREVIEWDUE#3'] }, 'gsi2'),
        ...['UpdateItem', 'PutItem'].map((a) => at(previewSweeper.name, a, own)),
        at(previewSweeper.name, 'PutItem', audit),
        at(previewSweeper.name, 'PutItem', event),
      ]),
    ).toEqual([]);
    const deliveries = { 'dynamodb:LeadingKeys': [keys.delivery(tenantId, 'd1').pk] };
    const refused = await denied([
      // Another partition of the tenant, another kind of item, an index: never.
      ...['GetItem', 'UpdateItem', 'PutItem'].map((a) => at(previewWorker.name, a, deliveries)),
      at(previewWorker.name, 'UpdateItem', audit),
      at(previewWorker.name, 'DeleteItem', own),
      at(previewWorker.name, 'GetItem', { 'dynamodb:LeadingKeys': [keys.idempotency(tenantId, 'op', 'k').pk] }),
      at(previewWorker.name, 'Query', { 'dynamodb:LeadingKeys': ['PREVIEWDUE#3'] }, 'gsi2'),
      at(previewSweeper.name, 'Query', { 'dynamodb:LeadingKeys': [`${keys.tenant(tenantId).pk}#ORDERS#2026-11-23`] }, 'gsi1'),
      at(previewSweeper.name, 'Query', { 'dynamodb:LeadingKeys': ['DUE#3'] }, 'gsi2'),
      at(previewSweeper.name, 'GetItem', own),
      at(previewSweeper.name, 'UpdateItem', deliveries),
      at(previewSweeper.name, 'UpdateItem', audit),
      at(previewSweeper.name, 'DeleteItem', own),
    ]);
    expect(refused).toHaveLength(13);
  });

  it('grants no function Scan, nor a table another setting names', async () => {
    const refused = await denied([
      { fn: 'orders', action: 'dynamodb:Scan', resource: table },
      { fn: 'orders', action: 'dynamodb:GetItem', resource: { kind: 'dynamodb-table', name: 'another-table' } },
    ]);
    expect(refused).toHaveLength(2);
  });
});

describe('the check itself', () => {
  it('cannot pass a call made as no function, or as a function the stack does not have', async () => {
    const report = await checkCalls(template, [
      { action: 'dynamodb:GetItem', resource: table },
      { fn: 'no-such-function', action: 'dynamodb:GetItem', resource: table },
      { fn: 'tracking', action: 'sqs:SendMessage', resource: { kind: 'sqs-queue', setting: 'WEBHOOK_QUEUE_URL' } },
    ]);
    expect(report.problems).toEqual([
      expect.stringContaining('ran as no function'),
      expect.stringContaining('the stack has no function of that name'),
      expect.stringContaining('tracking reads WEBHOOK_QUEUE_URL for sqs:SendMessage, but its deployment does not set it'),
    ]);
  });

  it('counts a grant with a condition as used only by a call its condition allows', async () => {
    // Sealing a new signing secret is allowed by the secret-context grant; it does not use the
    // replay grant on the same key and action, whose context it does not have.
    const report = await checkCalls(template, [{ fn: 'webhooks', action: 'kms:GenerateDataKey', resource: key, context: encryptionContextKeys(secretContext) }]);
    expect(report.denied).toEqual([]);
    const generate = report.unused.filter((f) => f.fn === 'webhooks' && f.action === 'kms:GenerateDataKey');
    expect(generate).toEqual([expect.objectContaining({ detail: expect.stringContaining('kms:EncryptionContext:operationId') })]);
    expect(generate[0]!.detail).not.toContain('secretId');
  });

  it('reports grants no call used, but not what Lambda itself does with a role, nor operator calls', async () => {
    const report = await checkCalls(template, [{ fn: OPERATOR, action: 'dynamodb:Scan', resource: table }]);
    expect(report.operatorCalls).toBe(1);
    expect(report.denied).toEqual([]);
    const unused = report.unused.map((f) => `${f.fn} ${f.action}`);
    expect(unused).toContain(`${webhookWorker.name} kms:Decrypt`);
    expect(unused.filter((u) => /logs:|xray:|dynamodb:(GetRecords|DescribeStream|GetShardIterator|ListStreams)|sqs:(ReceiveMessage|DeleteMessage)/.test(u))).toEqual([]);
  });
});
