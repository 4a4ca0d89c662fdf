import { randomUUID } from 'node:crypto';
import { putMember } from '../shared/tenancy/members.ts';
import { startProviderBench } from './support/provider-bench.ts';
import { fmt, median } from './support/stats.ts';

/**
 * `npm run bench:guides [-- --stops 300 --rounds 1]`: the dispatch guides of a route (45 stops unless
 * told; a route holds up to 300), from the admin's POST to
 * every stop's guide issued, through the provider fake held to the provider's rate (about 10
 * requests a second per token). The floor is the same provider calls made directly, with the
 * same spacing (110 ms after each answer): one shipping and one guide read per stop. The ratio says what our
 * path (queue, issue transactions, the provider turn-taking) costs beyond the provider itself.
 */
const option = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
// 45 was a route's most stops while its assignment was one transaction; now up to MAX_STOPS_PER_ROUTE (300).
const STOPS = Number(option('stops') ?? process.env.BENCH_STOPS ?? 45);
const ROUNDS = Number(option('rounds') ?? process.env.BENCH_ROUNDS ?? 3);
if (!Number.isInteger(STOPS) || STOPS < 1 || STOPS > 300) throw new Error('--stops must be 1-300');
const RATE_PER_SECOND = 10;
process.env.LOG_LEVEL = 'WARN';

const { fake, stack, tenantId, api, connect } = await startProviderBench();
fake.setRateLimit(RATE_PER_SECOND);
const company = { clientCode: '76086428-5', clientName: 'Bench Guías SpA' };
const accessToken = fake.addCompany(company);
const { id: driverId } = await putMember({ tenantId, subject: 'bench-driver', role: 'driver', firstName: 'Pedro' });
const connection = await connect(company.clientCode);
// The fake's ids: office 1, IVA 1, types 33/39/61 and the active 52 (8); shipping types 1, 5, 6.
await api('PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, {
  version: 1,
  officeId: '1',
  vatTaxId: '1',
  documentTypeIds: { receipt: '3', invoice: '1', creditNote: '5', dispatchGuide: '8' },
  shippingTypeIds: { sale: '1', internalTransfer: '5', otherTransfer: '6' },
});

const serviceDate = new Date().toISOString().slice(0, 10);
const lines = [
  { variantId: null, description: 'Harina 25 kg', quantity: '4', unitPriceMinor: '18990' },
  { variantId: null, description: 'Aceite 5 l', quantity: 2, unitPriceMinor: '12490' },
];

/** A route of STOPS orders with goods, assigned: what an admin has before asking for its guides. */
const assignedRoute = async (round: number): Promise<string> => {
  const orderIds: string[] = [];
  for (let i = 0; i < STOPS; i++) {
    const order = await api('POST', '/v1/distribution/orders', {
      reference: `GD-${round}-${i}`,
      serviceDate,
      recipient: { name: `Almacén ${i}`, phone: '+56987654321', email: 'compras@example.cl' },
      address: { text: `Av. Matta ${500 + i}`, latitude: -33.45 - i / 1000, longitude: -70.65, municipality: 'Santiago', city: 'Santiago' },
      connectionId: connection.id,
      lines,
    });
    orderIds.push(order.id);
  }
  const plan = await api('POST', '/v1/routing/plans', { serviceDate, routes: [{ vehicleRouteId: 'V1', orderIds }] });
  await api('POST', `/v1/routing/plans/${plan.id}/approve`, { version: 1 });
  const route = await api('POST', '/v1/field/routes', {
    routePlanId: plan.id,
    vehicleRouteId: 'V1',
    workerId: driverId,
    serviceDate,
    depotName: 'Bodega Quilicura',
    vehicle: { plate: `GD${String(round).padStart(2, '0')}AB`, label: 'Camión 3' },
  });
  return route.id;
};

const ISSUED = new Set(['issued', 'provider_recorded']);
const path = async (routeId: string): Promise<number> => {
  const start = performance.now();
  // Not a sale: a sale needs each order's customerId (decisions 16), a party record the bench has not imported; the provider calls are the same.
  const { items } = await api('POST', `/v1/field/routes/${routeId}/dispatch-guides`, { transfer: 'other_transfer' });
  if (items.length !== STOPS) throw new Error(`expected ${STOPS} guides, got ${items.length}`);
  for (;;) {
    const route = await api('GET', `/v1/field/routes/${routeId}`);
    const stops = route.stops as Array<{ dispatchGuide: { localState: string } | null }>;
    if (stops.every((s) => s.dispatchGuide && ISSUED.has(s.dispatchGuide.localState))) return performance.now() - start;
    const failed = stops.find((s) => s.dispatchGuide && ['rejected', 'unknown'].includes(s.dispatchGuide.localState));
    if (failed) throw new Error(`a guide ended ${failed.dispatchGuide!.localState}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/**
 * The same provider calls made directly, with our path's spacing: the next call leaves 110 ms
 * after the previous answer (IMPORT_PROVIDER_MIN_INTERVAL_MS, functions/records/imports), the
 * least that keeps arrivals under the provider's 10 in any second.
 */
const SPACING_MS = Number(process.env.IMPORT_PROVIDER_MIN_INTERVAL_MS ?? 110);
const floor = async (round: number): Promise<number> => {
  const start = performance.now();
  let first = true;
  const paced = async () => {
    if (!first) await new Promise((r) => setTimeout(r, SPACING_MS));
    first = false;
  };
  const emissionDate = Math.floor(Date.now() / 86_400_000) * 86_400;
  for (let i = 0; i < STOPS; i++) {
    await paced();
    const response = await fetch(`${fake.apiUrl}/v1/shippings.json`, {
      method: 'POST',
      headers: { access_token: accessToken, 'content-type': 'application/json' },
      body: JSON.stringify({
        documentTypeId: 8,
        officeId: 1,
        emissionDate,
        shippingTypeId: 1,
        declareSii: 1,
        salesId: `floor-${round}-${i}-${randomUUID()}`,
        address: `Av. Matta ${500 + i}`,
        municipality: 'Santiago',
        city: 'Santiago',
        recipient: `Almacén ${i}`,
        dispatch: 1,
        details: lines.map((l) => ({ comment: l.description, quantity: Number(l.quantity), netUnitValue: Number(l.unitPriceMinor), taxId: '[1]' })),
      }),
    });
    if (response.status !== 201) throw new Error(`floor shipping: ${response.status} ${await response.text()}`);
    const shipping = (await response.json()) as { guide: { id: number } };
    await paced();
    const guide = await fetch(`${fake.apiUrl}/v1/documents/${shipping.guide.id}.json`, { headers: { access_token: accessToken } });
    if (guide.status !== 200) throw new Error(`floor guide read: ${guide.status}`);
    await guide.json();
  }
  return performance.now() - start;
};

const paths: number[] = [];
const floors: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const routeId = await assignedRoute(round);
  // The rate window of the setup's calls passes before either side is timed.
  await new Promise((r) => setTimeout(r, 1_100));
  paths.push(await path(routeId));
  await new Promise((r) => setTimeout(r, 1_100));
  floors.push(await floor(round));
}

const refused = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/shippings.json' && r.status === 429).length;
console.log(`\nDispatch guides of a route of ${STOPS} stops, provider held to ${RATE_PER_SECOND} requests/s, calls ${SPACING_MS} ms after the previous answer (${ROUNDS} rounds)\n`);
console.log('| round | path s (POST to all issued) | floor s (same calls, direct, paced) | ratio |');
console.log('|---|---|---|---|');
for (let i = 0; i < ROUNDS; i++) console.log(`| ${i + 1} | ${fmt(paths[i]! / 1000)} | ${fmt(floors[i]! / 1000)} | ${(paths[i]! / floors[i]!).toFixed(2)} |`);
console.log(`| median | ${fmt(median(paths) / 1000)} | ${fmt(median(floors) / 1000)} | ${(median(paths) / median(floors)).toFixed(2)} |`);
console.log(`\nShipping POSTs the provider answered 429: ${refused}`);
await stack.stop();
await fake.stop();
