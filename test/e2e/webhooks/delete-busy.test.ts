import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newDelivery } from '../../../functions/webhooks/delivery-record.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { orderCreatedEvent } from './order-event.ts';
import { isEndPending, type EndPendingMessage, type QueueMessage } from '../../../shared/ports/queue.ts';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { eventually } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';

// Pages of 10 deliveries of the destination's history, so 70 of them take several messages.
const PAGE = 10;
const stack = useLocalStack({ env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1', WEBHOOK_END_PENDING_PAGE_SIZE: String(PAGE), WEBHOOK_SWEEP_SECONDS: '3600' } });
let tenant: TestTenant;
let admin: TestMember;

beforeAll(async () => {
  tenant = await TestTenant.create(stack());
  admin = await tenant.member('admin', { mfa: true });
});

const HOUR = 3600_000;

/** A delivery as the worker leaves it: pending its next attempt in an hour (after one failure), or succeeded. */
const storedDelivery = (endpointId: string, at: Date, state: 'pending' | 'succeeded') => {
  const { event } = orderCreatedEvent(tenant.id, { at });
  const { id, destination: _copy, ...record } = newDelivery(event, endpointId, at);
  const next = new Date(Date.now() + HOUR).toISOString();
  return {
    id,
    state,
    item: {
      ...keys.delivery(tenant.id, id),
      ...keys.deliveryByEndpoint(endpointId, id),
      ...(state === 'pending' ? keys.deliveryDue(id, next) : {}),
      entity: 'delivery',
      deliveryId: id,
      ...record,
      state,
      attempts: 1,
      nextAttemptAt: state === 'pending' ? next : null,
      lastAttemptAt: at.toISOString(),
      lastStatus: state === 'pending' ? 503 : 200,
      lastOutcome: state === 'pending' ? 'http_status' : 'success',
      succeededAt: state === 'succeeded' ? at.toISOString() : null,
    },
  };
};

const putAll = async (items: Record<string, unknown>[]) => {
  for (let i = 0; i < items.length; i += 25) {
    await runAs(OPERATOR, () => table().send(new BatchWriteCommand({ RequestItems: { [tableName()]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } })));
  }
};

const readAll = async (ids: string[]) => {
  const bodies = [];
  for (let i = 0; i < ids.length; i += 10) {
    bodies.push(...(await Promise.all(ids.slice(i, i + 10).map(async (id) => (await tenant.call(admin, 'GET', `/v1/webhooks/deliveries/${id}`)).body))));
  }
  return bodies as { id: string; state: string; lastOutcome: string; attempts: number }[];
};

describe('deleting a destination with a long history of deliveries (issue 29)', () => {
  it('ends every pending delivery dead (destination_deleted) page by page through the queue; the stream consumer only hands over the first page', async () => {
    const endpoint = (await tenant.call(admin, 'POST', '/v1/webhooks/endpoints', { body: { url: 'http://127.0.0.1:9/busy', eventTypes: ['distribution.order.created'] } })).body.endpoint as { id: string };
    const now = Date.now();
    // 70 deliveries over the last day, every other one still pending: seven pages of history.
    const deliveries = Array.from({ length: 70 }, (_, i) => storedDelivery(endpoint.id, new Date(now - 24 * HOUR + i * 60_000), i % 2 === 0 ? 'pending' : 'succeeded'));
    await putAll(deliveries.map((d) => d.item));
    const pending = deliveries.filter((d) => d.state === 'pending');

    // The queue holds the ending messages back until the stream consumer has handed over its part.
    const queue = stack().webhooks.queue;
    const send = queue.send.bind(queue);
    const held: EndPendingMessage[] = [];
    const handed: EndPendingMessage[] = [];
    let holding = true;
    queue.send = async (message: QueueMessage, delaySeconds = 0) => {
      if (!isEndPending(message) || message.endPending.endpointId !== endpoint.id) return send(message, delaySeconds);
      if (holding) {
        held.push(message);
        return;
      }
      handed.push(message);
      return send(message, delaySeconds);
    };

    try {
      const deleted = await tenant.call(admin, 'DELETE', `/v1/webhooks/endpoints/${endpoint.id}`);
      expect(deleted.status, deleted.text).toBe(204);
      // The stream consumer's whole part: one message naming the start of the history; it ended nothing itself.
      await eventually(async () => held.length, (n) => n >= 1, 120_000);
      expect(held).toEqual([{ tenantId: tenant.id, endPending: { endpointId: endpoint.id, outcome: 'destination_deleted', cursor: null } }]);
      expect((await readAll(pending.map((d) => d.id))).every((d) => d.state === 'pending')).toBe(true);

      holding = false;
      await queue.send(held[0]);
      const ended = await eventually(() => readAll(pending.map((d) => d.id)), (all) => all.every((d) => d.state === 'dead'));
      for (const d of ended) expect(d).toMatchObject({ state: 'dead', lastOutcome: 'destination_deleted', attempts: 1 });
      // Several messages, each going on from where the last one stopped.
      expect(handed.length).toBeGreaterThanOrEqual(deliveries.length / PAGE);
      const cursors = handed.map((m) => m.endPending.cursor);
      expect(new Set(cursors).size).toBe(cursors.length);
      // The ones that had succeeded are left as they were.
      const others = await readAll(deliveries.filter((d) => d.state === 'succeeded').map((d) => d.id));
      for (const d of others) expect(d).toMatchObject({ state: 'succeeded', lastOutcome: 'success' });
    } finally {
      queue.send = send;
    }
  }, 120_000);
});
