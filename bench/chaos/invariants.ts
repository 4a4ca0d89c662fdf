import { isDeepStrictEqual } from 'node:util';
import { viewOfOrder, viewsOfRoute } from '../../functions/tracking/projection.ts';
import { runAs } from '../../shared/aws-calls/identity.ts';
import type { Received } from '../../test/support/receiver.ts';
import type { ProviderFake } from '../../test/support/provider-fake/index.ts';
import type { ChaosClient } from './client.ts';
import { checkImports, importsOutstanding } from './import-invariants.ts';
import { scanTable, type Item } from './table-scan.ts';
import type { ChaosTenant } from './workload.ts';

export interface InvariantReport {
  /** Each line names one broken invariant and the thing it broke on. */
  violations: string[];
  events: number;
  deliveries: number;
  viewsChecked: number;
  invoices: number;
  imports: number;
  replays: number;
}

const tenantItems = (items: Item[], t: ChaosTenant, entity: string) => items.filter((i) => i.entity === entity && i.tenantId === t.tenantId);

/** Outbox events of the tenant a destination takes (a webhook.test goes to its one target only). */
const subscribed = (items: Item[], t: ChaosTenant) => {
  const pairs: { event: Item; destination: ChaosTenant['destinations'][number] }[] = [];
  for (const event of items.filter((i) => i.entity === 'event' && i.tenantId === t.tenantId && !i.target)) {
    for (const destination of t.destinations) if (destination.eventTypes.includes(event.type)) pairs.push({ event, destination });
  }
  return pairs;
};

/** What is still moving: events not yet delivered and recorded, invoices not settled. Empty once settled. */
export const outstanding = (items: Item[], t: ChaosTenant, received: Received[]): string[] => {
  const left: string[] = [];
  const seen = new Set(received.map((r) => `${r.headers['webhook-id']} ${r.path}`));
  const deliveries = new Map(tenantItems(items, t, 'delivery').map((d) => [`${d.eventId} ${d.endpointId}`, d]));
  for (const { event, destination } of subscribed(items, t)) {
    const delivery = deliveries.get(`${event.id} ${destination.id}`);
    if (!seen.has(`${event.id} ${new URL(destination.url).pathname}`) || delivery?.state !== 'succeeded') left.push(`event ${event.id} to ${destination.url}`);
  }
  for (const intent of items.filter((i) => i.tenantId === t.tenantId && typeof i.localState === 'string' && i.correlationId)) {
    if (['submitting', 'unknown'].includes(intent.localState) || intent.providerState === 'unknown') left.push(`invoice ${intent.id} ${intent.localState}`);
  }
  return [...left, ...importsOutstanding(items, t)];
};

/** A create answers the resource, or (a destination) the resource beside its secret. */
const createdId = (answer: unknown): string => (answer as { id?: string }).id ?? (answer as { endpoint: { id: string } }).endpoint.id;

const ENTITY_OF_CREATE: Record<string, string> = {
  '/v1/distribution/orders': 'order',
  '/v1/routing/plans': 'route-plan',
  '/v1/field/routes': 'route',
  '/v1/webhooks/endpoints': 'webhookEndpoint',
};

/**
 * No idempotent request applied twice: each key's replay answers what the client got, and each
 * kind of resource has exactly as many items as keyed creates made.
 */
const checkIdempotency = async (client: ChaosClient, items: Item[], t: ChaosTenant, violations: string[]): Promise<number> => {
  for (const request of client.keyed) {
    const replay = await client.replay(request);
    if (replay.status !== request.status || !isDeepStrictEqual(replay.body, request.answer)) {
      violations.push(`idempotency: ${request.method} ${request.path} key ${request.key} answered ${request.status} first and ${replay.status} on replay`);
    }
  }
  for (const [path, entity] of Object.entries(ENTITY_OF_CREATE)) {
    const created = new Set(client.keyed.filter((r) => r.path === path && r.status === 201).map((r) => createdId(r.answer)));
    const stored = tenantItems(items, t, entity);
    if (stored.length !== created.size) violations.push(`idempotency: ${stored.length} ${entity} items for ${created.size} keyed creates`);
  }
  const intents = new Set(client.keyed.filter((r) => r.path === '/v1/customer-finance/invoice-intents' && r.status === 201).map((r) => (r.answer as { id: string }).id));
  const storedIntents = items.filter((i) => i.tenantId === t.tenantId && i.correlationId && typeof i.localState === 'string');
  if (storedIntents.length !== intents.size) violations.push(`idempotency: ${storedIntents.length} invoice intents for ${intents.size} keyed creates`);
  const started = new Set(client.keyed.filter((r) => r.path.endsWith('/imports') && r.status === 202).map((r) => createdId(r.answer)));
  const storedImports = tenantItems(items, t, 'providerImport');
  if (storedImports.length !== started.size) violations.push(`idempotency: ${storedImports.length} imports for ${started.size} keyed starts`);
  return client.keyed.length;
};

/** Every subscribed event reached its destination at least once, and its delivery records one success. */
const checkDeliveries = (items: Item[], t: ChaosTenant, received: Received[], violations: string[]): { events: number; deliveries: number } => {
  const pairs = subscribed(items, t);
  const deliveries = tenantItems(items, t, 'delivery');
  for (const { event, destination } of pairs) {
    const path = new URL(destination.url).pathname;
    if (!received.some((r) => r.headers['webhook-id'] === event.id && r.path === path)) violations.push(`outbox: event ${event.id} (${event.type}) never reached ${path}`);
    const records = deliveries.filter((d) => d.eventId === event.id && d.endpointId === destination.id);
    const successes = records.flatMap((d) => (d.attemptLog ?? []).filter((a: { outcome: string }) => a.outcome === 'success'));
    if (records.length !== 1 || successes.length !== 1) violations.push(`outbox: event ${event.id} to ${path}: ${records.length} deliveries, ${successes.length} successes recorded`);
  }
  return { events: new Set(pairs.map((p) => p.event.id)).size, deliveries: received.length };
};

/** A view as the page reads it: no keys or build time, and no undefined fields (the table keeps none). */
const withoutBuildTime = ({ builtAt: _builtAt, expiresAt: _expiresAt, pk: _pk, sk: _sk, entity: _entity, ...view }: Item) => JSON.parse(JSON.stringify(view));

/** What the projection would write now for each of the tenant's orders, by token; nothing is written. */
const rebuiltViews = async (items: Item[], t: ChaosTenant): Promise<{ orders: Item[]; rebuilt: Map<string, Item> }> => {
  const orders = tenantItems(items, t, 'order');
  const rebuilt = new Map<string, Item>();
  const builtAt = new Date().toISOString();
  await runAs('tracking-projection', async () => {
    const routes = new Set<string>();
    for (const order of orders) {
      const { view, routeId } = await viewOfOrder(t.tenantId, order.orderId, builtAt);
      if (view) rebuilt.set(view.token, view);
      if (routeId) routes.add(routeId);
    }
    for (const route of tenantItems(items, t, 'route')) routes.add(route.routeId);
    for (const routeId of routes) for (const view of await viewsOfRoute(t.tenantId, routeId, builtAt)) rebuilt.set(view.token, view);
  });
  return { orders, rebuilt };
};

const viewDifferences = async (t: ChaosTenant): Promise<{ orders: number; differences: string[] }> => {
  // One scan serves both sides: the orders and routes to rebuild from, and the stored views.
  const items = await scanTable();
  const { orders, rebuilt } = await rebuiltViews(items, t);
  const views = new Map(tenantItems(items, t, 'tracking-view').map((v) => [v.token, v]));
  const differences: string[] = [];
  for (const order of orders) {
    const stored = views.get(order.trackingToken);
    const expected = rebuilt.get(order.trackingToken);
    if (!stored) differences.push(`tracking: order ${order.orderId} has no view`);
    else if (!isDeepStrictEqual(withoutBuildTime(stored), withoutBuildTime(expected ?? {}))) {
      differences.push(`tracking: order ${order.orderId} view ${JSON.stringify(withoutBuildTime(stored))} differs from its rebuild ${JSON.stringify(withoutBuildTime(expected ?? {}))}`);
    }
  }
  return { orders: orders.length, differences };
};

/**
 * Every tracking view equals what the projection builds from the orders, routes and stops as they
 * are now. The projection reads the same stream as the fan-out and may still be behind the last
 * delivery: compare until they agree, and report what still differs after `timeoutMs`.
 */
const checkViews = async (t: ChaosTenant, violations: string[], timeoutMs: number): Promise<number> => {
  const deadline = Date.now() + timeoutMs;
  let result = await viewDifferences(t);
  while (result.differences.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    result = await viewDifferences(t);
  }
  violations.push(...result.differences);
  return result.orders;
};

/** No invoice with two provider documents: one per salesId at the fake, and exactly one behind each issued intent. */
const checkInvoices = (items: Item[], t: ChaosTenant, fake: ProviderFake, violations: string[]): number => {
  const documents = fake.documents(t.providerToken);
  const bySalesId = new Map<string, number[]>();
  for (const d of documents) if (d.salesId) bySalesId.set(d.salesId, [...(bySalesId.get(d.salesId) ?? []), d.id]);
  for (const [salesId, ids] of bySalesId) if (ids.length > 1) violations.push(`invoicing: salesId ${salesId} has ${ids.length} provider documents`);
  const intents = items.filter((i) => i.tenantId === t.tenantId && i.correlationId && typeof i.localState === 'string');
  for (const intent of intents) {
    const ids = bySalesId.get(intent.correlationId) ?? [];
    if (intent.localState === 'issued' && (ids.length !== 1 || String(ids[0]) !== String(intent.externalDocumentId))) {
      violations.push(`invoicing: issued intent ${intent.id} has documents [${ids}] at the provider, records ${intent.externalDocumentId}`);
    }
    if (intent.localState !== 'issued' && intent.localState !== 'provider_recorded' && ids.length > 0) {
      violations.push(`invoicing: intent ${intent.id} is ${intent.localState} but the provider holds document ${ids[0]}`);
    }
  }
  return intents.length;
};

export const checkInvariants = async (client: ChaosClient, t: ChaosTenant, fake: ProviderFake, received: Received[], viewsTimeoutMs = 60_000): Promise<InvariantReport> => {
  const violations: string[] = [];
  const items = await scanTable();
  const replays = await checkIdempotency(client, items, t, violations);
  const { events, deliveries } = checkDeliveries(items, t, received, violations);
  const viewsChecked = await checkViews(t, violations, viewsTimeoutMs);
  const invoices = checkInvoices(items, t, fake, violations);
  const imports = checkImports(items, t, fake, violations);
  return { violations, events, deliveries, viewsChecked, invoices, imports, replays };
};
