import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { createIntent } from '../../../functions/invoicing/create.ts';
import { CreateIntentBody } from '../../../functions/invoicing/schemas.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { keys } from '../../../shared/table/keys.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { guideLine, seedGuide } from './guides-seed.ts';
import { invoiceBody, PREFIX, readySandbox } from './support.ts';

const stack = useLocalStack();

describe('an invoice made from guides checks the guides inside its transaction (issue 29)', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  let operator: TestMember;
  let ready: Awaited<ReturnType<typeof readySandbox>>;

  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    [admin, operator] = await Promise.all([tenant.member('admin'), tenant.member('operator')]);
    ready = await readySandbox(tenant, admin);
  });

  /** What the reconciler's commit does to a guide the tax authority rejected (state and version; the rest is not read here). */
  const rejectGuide = (id: string, version: number) =>
    table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.invoiceIntent(tenant.id, id),
        UpdateExpression: 'SET localState = :rejected, taxState = :rejected, version = :next',
        ExpressionAttributeValues: { ':rejected': 'rejected', ':next': version + 1 },
      }),
    );

  it('a guide the tax authority rejects between the create’s read and its commit is not invoiced: the create runs again and answers 422', async () => {
    const [issued, pending] = await Promise.all([
      seedGuide(tenant.id, ready.connection.id, ready.customerId, [guideLine('harina', '2', '1000')]),
      seedGuide(tenant.id, ready.connection.id, ready.customerId, [guideLine('aceite', '1', '3000')], { localState: 'provider_recorded', taxState: 'pending' }),
    ]);
    const { lines: _lines, ...rest } = invoiceBody(ready.connection.id, ready.customerId, { totalMinor: '5000' });
    const body = { ...rest, dispatchGuideIds: [issued.id, pending.id] };

    const created = await createIntent(tenant.id, v.parse(CreateIntentBody, body), new Date());
    await rejectGuide(pending.id, pending.version);
    await expect(commit(created.writes)).rejects.toMatchObject({ code: 'concurrent_update' });
    // Nothing holds the guides, and the request (what the chain runs again) says why.
    const answer = await tenant.call(operator, 'POST', PREFIX, { body });
    expect(answer.status, answer.text).toBe(422);
    expect(answer.body.errors).toEqual([expect.objectContaining({ path: 'body.dispatchGuideIds.1' })]);
    const alone = await tenant.call(operator, 'POST', PREFIX, { body: { ...body, dispatchGuideIds: [issued.id], totalMinor: '2000' } });
    expect(alone.status, alone.text).toBe(201);
  });

  it('a guide that became issued meanwhile is invoiced on the second run', async () => {
    const pending = await seedGuide(tenant.id, ready.connection.id, ready.customerId, [guideLine('azucar', '3', '990')], { localState: 'provider_recorded', taxState: 'pending' });
    const { lines: _lines, ...rest } = invoiceBody(ready.connection.id, ready.customerId, { totalMinor: '2970' });
    const body = { ...rest, dispatchGuideIds: [pending.id] };
    const created = await createIntent(tenant.id, v.parse(CreateIntentBody, body), new Date());
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.invoiceIntent(tenant.id, pending.id),
        UpdateExpression: 'SET localState = :issued, taxState = :authorized, version = :next',
        ExpressionAttributeValues: { ':issued': 'issued', ':authorized': 'authorized', ':next': pending.version + 1 },
      }),
    );
    await expect(commit(created.writes)).rejects.toMatchObject({ code: 'concurrent_update' });
    const answer = await tenant.call(operator, 'POST', PREFIX, { body });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.dispatchGuideIds).toEqual([pending.id]);
  });
});
