import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { newDelivery, putNewDelivery } from '../../../functions/webhooks/delivery-record.ts';
import { MAX_ITEMS_READ_PER_PAGE } from '../../../functions/webhooks/deliveries.ts';
import { orderCreatedEvent } from './order-event.ts';
import { newId } from '../../../shared/ids.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';

const stack = useLocalStack();
let tenant: TestTenant;
let admin: TestMember;
let endpointId: string;
let deadId: string;
const TOTAL = 2 * MAX_ITEMS_READ_PER_PAGE + 50;

/** Items DynamoDB evaluated for Queries while `run` ran (ScannedCount, before any filter). */
const countRead = async <T>(run: () => Promise<T>): Promise<{ result: T; read: number }> => {
  let read = 0;
  const name = `count-read-${newId()}`;
  table().middlewareStack.add(
    (next) => async (args) => {
      const out = await next(args);
      read += ((out.output as { ScannedCount?: number }).ScannedCount ?? 0);
      return out;
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await run(), read };
  } finally {
    table().middlewareStack.remove(name);
  }
};

beforeAll(async () => {
  tenant = await TestTenant.create(stack());
  admin = await tenant.member('admin', { mfa: true });
  const created = await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url: 'https://hooks.acme-receiver.cl/in', eventTypes: ['distribution.order.created'] } });
  endpointId = created.body.endpoint.id;
  // The oldest delivery is the only dead one; every newer one succeeded.
  const start = Date.now() - 3_600_000;
  const items = Array.from({ length: TOTAL }, (_, i) => {
    const at = new Date(start + i * 1000);
    const { event } = orderCreatedEvent(tenant.id, { at, reference: `P-${i}` });
    const record = newDelivery(event, endpointId, at);
    const item = { ...putNewDelivery(record).item.Put!.Item!, state: i === 0 ? 'dead' : 'succeeded' };
    delete (item as Record<string, unknown>).gsi2pk;
    delete (item as Record<string, unknown>).gsi2sk;
    if (i === 0) deadId = record.id;
    return item;
  });
  for (let i = 0; i < items.length; i += 25) {
    await table().send(new BatchWriteCommand({ RequestItems: { [tableName()]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  }
}, 240_000);


/** Follows nextCursor from the first page; every page must stay within the read budget. */
const walk = async (path: string) => {
  const found: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const { result, read } = await countRead(() => tenant.call(admin, 'GET', `${path}${cursor ? `&before=${cursor}` : ''}`));
    expect(result.status, result.text).toBe(200);
    expect(read).toBeLessThanOrEqual(MAX_ITEMS_READ_PER_PAGE + 1);
    found.push(...result.body.items.map((d: { id: string }) => d.id));
    cursor = result.body.nextCursor;
    pages++;
  } while (cursor && pages < 10);
  return { found, pages };
};

describe('filtered delivery pages', () => {
  it('state=dead&limit=1 reads a bounded number of items per page and still reaches the dead delivery', async () => {
    const { found, pages } = await walk('/v1/webhooks/deliveries?state=dead&limit=1');
    expect(found).toEqual([deadId]);
    expect(pages).toBeGreaterThan(1);
  });

  it('the same holds for one destination’s deliveries (gsi1), by both paths', async () => {
    expect((await walk(`/v1/webhooks/endpoints/${endpointId}/deliveries?state=dead&limit=1`)).found).toEqual([deadId]);
    expect((await walk(`/v1/webhooks/deliveries?endpointId=${endpointId}&state=dead&limit=1`)).found).toEqual([deadId]);
  });

  it('an unfiltered page reads one item more than it shows', async () => {
    const { result, read } = await countRead(() => tenant.call(admin, 'GET', '/v1/webhooks/deliveries?limit=5'));
    expect(result.body.items).toHaveLength(5);
    expect(result.body.nextCursor).toBe(result.body.items[4].id);
    expect(read).toBeLessThanOrEqual(6);
  });

  it('another tenant naming this destination gets 404 without reading its deliveries', async () => {
    const other = await TestTenant.create(stack());
    const otherAdmin = await other.member('admin', { mfa: true });
    const { result, read } = await countRead(() => other.call(otherAdmin, 'GET', `/v1/webhooks/deliveries?endpointId=${endpointId}&state=dead&limit=1`));
    expect(result.status).toBe(404);
    expect(result.body.code).toBe('not_found');
    expect(read).toBe(0);
  });
});
