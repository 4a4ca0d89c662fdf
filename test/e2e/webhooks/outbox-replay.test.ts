import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { replayOutbox } from '../../../shared/events/replay.ts';
import { newId } from '../../../shared/ids.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { keys, tenantPk } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { loadConsumers } from '../../../infra/local/outbox-replay-route.ts';
import { eventually } from '../../support/receiver.ts';
import { useWebhookWorld } from './world.ts';
import { orderBody } from '../operations/support.ts';

const run = promisify(execFile);
const world = useWebhookWorld();
const { stack, receiver } = world;
let endpointId: string;
beforeAll(async () => {
  endpointId = (await world.createEndpoint(['distribution.order.created'], 'replay')).endpoint.id;
});

/**
 * The fan-out's batch is lost, as when the event source mapping gives up on it: while this is
 * installed, the fan-out finds no destinations for the tenant, so it consumes the events and
 * makes nothing.
 */
const loseFanOut = () => {
  const name = `lose-${newId()}`;
  let lost = 0;
  table().middlewareStack.add(
    (next) => async (args) => {
      const values = (args.input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues;
      if (values?.[':pk'] === tenantPk(world.tenant.id) && values?.[':prefix'] === keys.webhookEndpointPrefix) {
        lost++;
        return { output: { Items: [], Count: 0, ScannedCount: 0, $metadata: {} }, response: {} } as never;
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { get lost() { return lost; }, restore: () => table().middlewareStack.remove(name) };
};

const deliveriesOf = async () => (await world.tenant.call(world.admin, 'GET', `/v1/webhooks/endpoints/${endpointId}/deliveries?limit=100`)).body.items as Array<{ eventId: string }>;
const adminCli = (args: string[]) =>
  run('node_modules/.bin/tsx', ['infra/local/admin-cli.ts', ...args], { env: { ...process.env, PORT: String(stack().port), TABLE_NAME: '', DYNAMODB_ENDPOINT: '' } });

describe('npm run admin -- outbox replay', () => {
  it('hands a lost batch to the fan-out and the tracking projection again, and a second replay duplicates nothing', async () => {
    const from = new Date();
    const outage = loseFanOut();
    const orders = [];
    for (const reference of ['RPL-1', 'RPL-2']) orders.push((await world.tenant.call(world.admin, 'POST', '/v1/distribution/orders', { body: orderBody(reference) })).body);
    await eventually(async () => outage.lost, (n) => n >= 2);
    outage.restore();
    // The projection's view of the first order is lost too.
    const token = orders[0].trackingUrl.split('/t/')[1];
    await eventually(() => world.tenant.call(undefined, 'GET', `/v1/track/${token}`), (r) => r.status === 200);
    await table().send(new DeleteCommand({ TableName: tableName(), Key: opsKeys.trackingView(token) }));
    expect((await world.tenant.call(undefined, 'GET', `/v1/track/${token}`)).status).toBe(404);
    expect(await deliveriesOf()).toEqual([]);
    const to = new Date(Date.now() + 1_000);

    const { stdout } = await adminCli(['outbox', 'replay', '--from', from.toISOString(), '--to', to.toISOString(), '--tenant', world.tenant.id]);
    expect(JSON.parse(stdout)).toMatchObject({ events: 2, items: 2 });
    const eventIds = await eventually(async () => (await deliveriesOf()).map((d) => d.eventId), (ids) => ids.length === 2);
    await eventually(async () => receiver.received.length, (n) => n === 2);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(eventIds));
    expect((await world.tenant.call(undefined, 'GET', `/v1/track/${token}`)).status).toBe(200);

    // Again, and once more in this process: the same deliveries, no second request.
    await adminCli(['outbox', 'replay', '--from', from.toISOString(), '--to', to.toISOString()]);
    expect(await replayOutbox({ from, to, tenantId: world.tenant.id }, await loadConsumers())).toMatchObject({ events: 2 });
    // The replays ran the fan-out to completion; a message it had queued would be sent by now.
    await new Promise((r) => setTimeout(r, 500));
    expect((await deliveriesOf()).map((d) => d.eventId).sort()).toEqual([...eventIds].sort());
    expect(receiver.received).toHaveLength(2);
  }, 240_000);

  it('replays only the range asked for, and refuses a malformed one', async () => {
    const later = new Date(Date.now() + 3_600_000);
    expect(await replayOutbox({ from: later, to: new Date(later.getTime() + 60_000), tenantId: world.tenant.id }, await loadConsumers())).toEqual({ events: 0, items: 0 });
    const refused = await adminCli(['outbox', 'replay', '--from', 'yesterday', '--to', later.toISOString()]).catch((error) => error);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--from must be an ISO 8601 time');
  });
});
