import { OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';
import { queryAll } from '../../shared/table/query-all.ts';
import { tenantPk } from '../../shared/table/keys.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { tableName } from '../../shared/table/client.ts';
import type { Tally } from './mix.ts';
import type { LoadReceiver } from './receiver.ts';
import type { LoadTenant } from './seed.ts';

/** The orders the table holds for these tenants with their references, read page by page (as an operator would look). */
const ordersInTable = (tenants: LoadTenant[]) => runAs(OPERATOR, () => readOrders(tenants));
const readOrders = async (tenants: LoadTenant[]): Promise<Map<string, string>> => {
  const references = new Map<string, string>();
  for (const t of tenants) {
    const items = queryAll({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': tenantPk(t.id), ':prefix': opsKeys.orderPrefix },
      ProjectionExpression: 'sk, #r',
      ExpressionAttributeNames: { '#r': 'reference' },
    });
    for await (const item of items) references.set((item.sk as string).slice(opsKeys.orderPrefix.length), item.reference as string);
  }
  return references;
};

/**
 * What the load must not lose or duplicate: every event of a committed create or delivery
 * arrives, verified, at the receiver; every answered order is in the table; and no create made
 * two orders (each create sends its own reference, and its retry the same body, so a reference
 * held by two orders is a duplicate). An order no answer named is a create whose answer never
 * came (in flight when a step ended, or timed out): counted, not a failure.
 */
export const checkEffects = async (options: { tenants: LoadTenant[]; tally: Tally; receiver: LoadReceiver; timeoutMs?: number }) => {
  const { tenants, tally, receiver } = options;
  const started = Date.now();
  const deadline = started + (options.timeoutMs ?? 180_000);
  let missing = receiver.missing(tally.expectedEvents);
  while (missing.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    missing = receiver.missing(tally.expectedEvents);
  }
  const redelivered = [...receiver.arrivals.values()].filter((n) => n > 1).length;
  const seeded = new Set(tenants.map((t) => t.orderId));
  const stored = await ordersInTable(tenants);
  const unanswered = [...stored.keys()].filter((id) => !tally.orders.has(id) && !seeded.has(id));
  const lost = [...tally.orders].filter((id) => !stored.has(id));
  const perReference = new Map<string, number>();
  for (const reference of stored.values()) perReference.set(reference, (perReference.get(reference) ?? 0) + 1);
  const duplicated = [...perReference].filter(([, n]) => n > 1).map(([reference]) => reference);

  console.log(`\nEffects`);
  console.log(`  creates answered ${tally.orders.size}, replays with the same key answered the same order ${tally.replays} times`);
  console.log(`  orders in the table: ${stored.size} (${seeded.size} seeded; ${unanswered.length} whose answer never came: in flight when a run ended, or timed out; ${lost.length} answered but missing; ${duplicated.length} references with two orders)`);
  console.log(`  webhook events expected ${tally.expectedEvents.size}, arrived verified ${tally.expectedEvents.size - missing.length} (${((Date.now() - started) / 1000).toFixed(0)} s after the load), missing ${missing.length}`);
  console.log(`  redelivered (at least once, counted once): ${redelivered}; refused by the receiver (bad signature): ${receiver.refused}`);
  if (missing.length > 0) console.log(`  missing, first 10: ${missing.slice(0, 10).join(', ')}`);
  return { ok: missing.length === 0 && receiver.refused === 0 && lost.length === 0 && duplicated.length === 0, missing, unanswered, lost, duplicated };
};
