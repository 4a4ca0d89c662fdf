import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { sweep } from '../../../functions/webhooks/sweeper/handler.ts';
import { newId } from '../../../shared/ids.ts';
import type { DeliveryMessage, QueuePort } from '../../../shared/ports/queue.ts';
import { setPorts } from '../../../shared/ports/registry.ts';
import { DUE_SHARDS, keys, shardOf } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { useLocalStack } from '../../support/stack.ts';

const stack = useLocalStack();
afterAll(() => setPorts({ queue: stack().webhooks.queue }));

/** A delivery id whose due-index shard is `shard`. */
const idInShard = (shard: number): string => {
  for (;;) {
    const id = newId();
    if (shardOf(id, DUE_SHARDS) === shard) return id;
  }
};

/** Only what the sweeper reads: the due-index keys and the two ids of the message. */
const overdueItem = (tenantId: string, deliveryId: string, dueAt: string) => ({
  ...keys.delivery(tenantId, deliveryId),
  ...keys.deliveryDue(deliveryId, dueAt),
  entity: 'delivery',
  tenantId,
  deliveryId,
});

/** The messages the sweeper sends from now on, kept instead of queued. */
const recordSends = (): DeliveryMessage[] => {
  const sent: DeliveryMessage[] = [];
  const recording: QueuePort = { send: async (message) => void sent.push(message as DeliveryMessage) };
  setPorts({ queue: recording });
  return sent;
};

describe('the sweeper', () => {
  it('sends an overdue delivery of one shard while another shard holds 1,001 older ones', async () => {
    const busyTenant = newId();
    const otherTenant = newId();
    const longAgo = new Date(Date.now() - 3_600_000);
    const backlog = Array.from({ length: 1001 }, (_, i) => overdueItem(busyTenant, idInShard(0), new Date(longAgo.getTime() + i).toISOString()));
    const lonely = overdueItem(otherTenant, idInShard(1), new Date(Date.now() - 120_000).toISOString());
    expect(keys.deliveryDue(lonely.deliveryId, 'x').gsi2pk).toBe('DUE#1');
    const items = [...backlog, lonely];
    for (let i = 0; i < items.length; i += 25) {
      await table().send(new BatchWriteCommand({ RequestItems: { [tableName()]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    }

    const sent = recordSends();
    await sweep();

    expect(sent).toContainEqual({ tenantId: otherTenant, deliveryId: lonely.deliveryId });
    // The busy shard still makes progress, oldest first, within its share of the run.
    expect(sent.filter((m) => m.tenantId === busyTenant).length).toBeGreaterThan(0);
    expect(sent.filter((m) => m.tenantId === busyTenant)[0].deliveryId).toBe(backlog[0].deliveryId);
  }, 180_000);

  it('resends an overdue delivery once per resend interval (5 minutes), and once when two runs meet it at the same moment', async () => {
    const item = overdueItem(newId(), idInShard(2), new Date(Date.now() - 120_000).toISOString());
    await table().send(new PutCommand({ TableName: tableName(), Item: item }));
    const sent = recordSends();
    const resends = () => sent.filter((m) => m.deliveryId === item.deliveryId).length;
    const start = new Date();
    const at = (minutes: number) => new Date(start.getTime() + minutes * 60_000);

    await Promise.all([sweep(at(0)), sweep(at(0))]);
    expect(resends()).toBe(1);
    // A throttled queue still holds that copy: the runs of the next minutes send no other.
    for (const minute of [1, 2, 4]) await sweep(at(minute));
    expect(resends()).toBe(1);
    // Still not taken after the interval (a lost message): sent again.
    await sweep(at(6));
    expect(resends()).toBe(2);
  });
});
