import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { openApiDocument } from '../../../functions/openapi.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { auditKeys } from '../../../shared/table/keys-audit.ts';
import { allOperations } from '../../../functions/index.ts';
import { TestTenant } from '../../support/api.ts';
import { Receiver } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';
import { fixtures, personal, type World } from './fixtures.ts';

// The sweeper would add entries of its own between a snapshot and a call: it runs by hand only.
const stack = useLocalStack({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1', WEBHOOK_SWEEP_SECONDS: '86400' } });
const receiver = new Receiver();
let world: World;

beforeAll(async () => {
  await receiver.start();
  const tenant = await TestTenant.create(stack());
  const [first, second, third] = personal.memberFirstNames;
  world = {
    stack: stack(),
    tenant,
    admin: await tenant.member('admin', { mfa: true, firstName: first }),
    operator: await tenant.member('operator', { firstName: second }),
    driver: await tenant.member('driver', { firstName: third }),
    receiver,
  };
});
afterAll(() => receiver.stop());

/** Audit items of the walk's tenant, raw as stored (index attributes included): all, or those from sort key `from` on. */
const storedEntries = async (from?: string): Promise<Record<string, any>[]> => {
  const items: Record<string, any>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: from ? 'pk = :pk AND sk >= :from' : 'pk = :pk',
        ExpressionAttributeValues: { ':pk': auditKeys.partition(world.tenant.id), ...(from ? { ':from': from } : {}) },
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};

/**
 * The entries members' requests wrote between the snapshot and now. Work a request hands to a job
 * (an import's pages) writes its own entries as the system, at its own pace: those are held by
 * the job's tests (test/e2e/records), not counted here. An entry's sort key begins with its UUIDv7
 * id, whose first 48 bits are the millisecond it was written: an entry written after the snapshot
 * sorts after the bound (a minute before it, a margin for the clock), so the walk reads only the
 * partition's last minute, not the whole walk's entries twice a call.
 */
const snapshot = async () => {
  const ms = (Date.now() - 60_000).toString(16).padStart(12, '0');
  const from = `${auditKeys.prefix}${ms.slice(0, 8)}-${ms.slice(8)}`;
  const before = new Set((await storedEntries(from)).map((item) => item.id));
  return async () => (await storedEntries(from)).filter((item) => !before.has(item.id) && item.actorId !== SYSTEM_ACTOR_ID);
};

/**
 * Mutating operations whose entries are not a member's, with the test that holds them instead: a
 * public operation has no member to act, and its body is the sender's, never refused.
 */
const auditedElsewhere: Record<string, string> = {
  receiveProviderNotice: 'test/e2e/records/imports-provider.test.ts: a notice that changes records writes one system entry naming the connection',
};

const mutating = (): { method: string; path: string; operationId: string }[] => {
  const document = openApiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operationId: operation.operationId }))
      .filter((op) => !auditedElsewhere[op.operationId]),
  );
};

const idempotentIds = new Set(allOperations().flatMap((op) => (op.access === 'member' && op.idempotent ? [op.operationId] : [])));
const entryAttributes = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk', 'entity', 'id', 'tenantId', 'actorId', 'requestId', 'resourceId', 'action', 'outcome', 'createdAt', 'expiresAt'];

describe('the walk covers the OpenAPI document', () => {
  it('leaves out only operations that exist', () => {
    const ids = new Set(allOperations().map((op) => op.operationId));
    expect(Object.keys(auditedElsewhere).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('has a fixture for every mutating operation, and none for an operation that is gone', () => {
    const ids = mutating().map((op) => op.operationId);
    expect(ids.length).toBeGreaterThan(15);
    expect(ids.filter((id) => !fixtures[id]), 'mutating operations without an audit fixture').toEqual([]);
    expect(Object.keys(fixtures).filter((id) => !ids.includes(id)), 'fixtures of operations the document does not have').toEqual([]);
  });
});

describe.each(mutating())('$operationId ($method $path)', ({ operationId, method, path }) => {
  const fixture = fixtures[operationId];

  it('a successful call writes exactly one entry naming the operation, the resource, the member and the request', async () => {
    expect(fixture, `no audit fixture for ${operationId}`).toBeDefined();
    const call = await fixture.prepare(world);
    expect(call.method).toBe(method);
    const written = await snapshot();
    const calledAt = Date.now();
    const response = await world.tenant.call(call.member, call.method, call.path, { body: call.body });
    const answeredAt = Date.now();
    expect(response.status, response.text).toBe(call.status);
    const entries = await written();
    if (fixture.changesNothing) {
      expect(entries).toEqual([]);
      return;
    }
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(Object.keys(entry).sort()).toEqual([...entryAttributes].sort());
    expect(entry).toMatchObject({
      tenantId: world.tenant.id,
      action: operationId,
      outcome: 'succeeded',
      resourceId: call.resourceId(response),
      actorId: call.member.id,
      requestId: response.headers.get('x-request-id'),
    });
    expect(entry.actorId).not.toBe(SYSTEM_ACTOR_ID);
    // Written during the call (the clock's millisecond, as the entry stores it).
    expect(Date.parse(entry.createdAt)).toBeGreaterThanOrEqual(calledAt - 1);
    expect(Date.parse(entry.createdAt)).toBeLessThanOrEqual(answeredAt);
    const retentionDays = (entry.expiresAt - Date.parse(entry.createdAt) / 1000) / 86_400;
    expect(Math.round(retentionDays)).toBe(400);
  });

  it('a call refused for its body writes none', async () => {
    const call = await fixture.prepare(world);
    const written = await snapshot();
    // An unknown field is refused whether the operation takes a body or not.
    const body = call.body === undefined ? { unknownField: true } : { ...(call.body as object), unknownField: true };
    const response = await world.tenant.call(call.member, call.method, call.path, { body });
    expect(response.status, response.text).toBe(400);
    expect(await written()).toEqual([]);
  });

  if (fixture?.refuse) {
    it('a call refused by the operation or its commit (stale version, taken plate, wrong state) writes none', async () => {
      const refusal = await fixture.refuse!(world);
      const written = await snapshot();
      const response = await world.tenant.call(refusal.member, refusal.method, refusal.path, { body: refusal.body });
      expect(response.status, response.text).toBe(refusal.status);
      expect(await written()).toEqual([]);
    });
  }

  if (idempotentIds.has(operationId)) {
    it('an idempotent replay writes none', async () => {
      const call = await fixture.prepare(world);
      const key = randomUUID();
      const first = await world.tenant.call(call.member, call.method, call.path, { body: call.body, idempotencyKey: key });
      expect(first.status, first.text).toBe(call.status);
      const written = await snapshot();
      const again = await world.tenant.call(call.member, call.method, call.path, { body: call.body, idempotencyKey: key });
      expect(again.status).toBe(call.status);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await written()).toEqual([]);
    });
  }
});

describe('twins and privacy', () => {
  it('two identical requests racing with one idempotency key leave exactly one entry', async () => {
    const call = await fixtures.createOrder.prepare(world);
    const written = await snapshot();
    const key = randomUUID();
    const answers = await Promise.all([1, 2, 3].map(() => world.tenant.call(call.member, call.method, call.path, { body: call.body, idempotencyKey: key })));
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    const entries = await written();
    expect(entries).toHaveLength(1);
    expect(entries[0].resourceId).toBe(created[0].body.id);
  });

  it('no entry of the whole walk holds a body or any personal data it was given', async () => {
    const entries = await storedEntries();
    expect(entries.length).toBeGreaterThan(20);
    const secrets = [personal.recipientName, personal.recipientPhone, personal.recipientEmail, personal.address, personal.failureReason, personal.evidenceNote, ...personal.memberFirstNames];
    const pieces = secrets.flatMap((text) => [text, ...text.split(/[\s,]+/).filter((word) => word.length >= 5)]);
    for (const entry of entries) {
      expect(Object.keys(entry).sort()).toEqual([...entryAttributes].sort());
      const text = JSON.stringify(entry).toLowerCase();
      for (const piece of pieces) expect(text, `an audit entry holds "${piece}"`).not.toContain(piece.toLowerCase());
    }
  });
});
