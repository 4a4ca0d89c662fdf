import { randomUUID } from 'node:crypto';
import { subscribableEventTypes } from '../../shared/events/catalogue.ts';
import { newId } from '../../shared/ids.ts';
import { putMember } from '../../shared/tenancy/members.ts';
import { putTenant } from '../../shared/tenancy/tenants.ts';
import { invoiceBody } from '../../test/e2e/invoicing/bodies.ts';
import type { ProviderFake } from '../../test/support/provider-fake/index.ts';
import type { Answer, Caller, ChaosClient } from './client.ts';

/** The tenant the workload acts in, made before the first kill. */
export interface ChaosTenant {
  tenantId: string;
  admin: Caller;
  operator: Caller;
  driver: Caller & { memberId: string };
  connectionId: string;
  /** The provider's access token of the tenant's company, to read the fake's documents. */
  providerToken: string;
  /** The company's code at the provider fake, to read the catalogue its imports read. */
  clientCode: string;
  /** Each destination's URL and the event types it takes. */
  destinations: { id: string; url: string; eventTypes: string[] }[];
}

const COMPANY = { clientCode: '76086428-5', clientName: 'Caos y Orden SpA' };
const FAKE_SETTINGS = { officeId: '1', vatTaxId: '1', documentTypeIds: { receipt: '3', invoice: '1', creditNote: '5' } };

const expectStatus = (what: string, answer: Answer, ...statuses: number[]): any => {
  if (!statuses.includes(answer.status)) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};

const token = async (baseUrl: string, subject: string): Promise<string> => {
  const response = await fetch(`${baseUrl}/_local/token`, { method: 'POST', body: JSON.stringify({ subject, mfa: true, ttlSeconds: 6 * 3600 }) });
  return ((await response.json()) as { token: string }).token;
};

/**
 * A tenant with an admin, an operator and a driver, two webhook destinations on the driver's
 * receiver (one for every event type, one for two), and a connection to the provider fake.
 * Members are written directly, as `npm run admin` writes them. Invoices are receipts (no
 * customer), so the connection's records are only what its import brings.
 */
export const setUpTenant = async (client: ChaosClient, baseUrl: string, fake: ProviderFake, receiverUrl: string): Promise<ChaosTenant> => {
  const tenantId = newId();
  await putTenant({ id: tenantId, name: 'Caos y Orden SpA' });
  const caller = async (role: 'admin' | 'operator' | 'driver') => {
    const subject = `chaos-${role}-${randomUUID()}`;
    const member = await putMember({ tenantId, subject, role, firstName: role === 'driver' ? 'Pedro' : 'Ana' });
    return { token: await token(baseUrl, subject), tenantId, memberId: member.id };
  };
  const admin = await caller('admin');
  const operator = await caller('operator');
  const driver = await caller('driver');

  const destinations: ChaosTenant['destinations'] = [];
  for (const [name, eventTypes] of [
    ['all', [...subscribableEventTypes]],
    ['some', ['distribution.order.created', 'field.stop.delivered']],
  ] as const) {
    const url = `${receiverUrl}/${name}`;
    const made = expectStatus('destination', await client.send(admin, 'POST', '/v1/webhooks/endpoints', { url, eventTypes }, { keyed: true }), 201);
    destinations.push({ id: made.endpoint.id, url, eventTypes: [...eventTypes] });
  }

  const providerToken = fake.addCompany(COMPANY);
  const authorization = expectStatus(
    'authorization',
    await client.send(admin, 'POST', '/v1/integrations/provider/authorizations', { clientCode: COMPANY.clientCode, name: 'Caos' }, { keyed: true }),
    201,
  );
  const connection = expectStatus(
    'connection',
    await client.send(admin, 'POST', '/v1/integrations/connections', { code: await fake.approve(COMPANY.clientCode), bindingSecret: authorization.bindingSecret }, { keyed: true }),
    201,
  );
  expectStatus('issue settings', await client.send(admin, 'PUT', `/v1/integrations/connections/${connection.id}/issue-settings`, { version: 1, ...FAKE_SETTINGS }), 200);
  return { tenantId, admin, operator, driver, connectionId: connection.id, providerToken, clientCode: COMPANY.clientCode, destinations };
};

/** Today in Santiago: orders and routes are for the tenant's current day. */
const today = (): string => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago' }).format(new Date());

/**
 * A move that is not idempotent by key (start, approve a plan): sent again after a kill,
 * it may meet its own earlier attempt's change and answer 409 (or 422). Then the state read back
 * must show the move made.
 */
const moved = async (client: ChaosClient, caller: Caller, what: string, answer: Answer, check: () => Promise<boolean>): Promise<void> => {
  if (answer.status < 300) return;
  if (answer.retried && [409, 422].includes(answer.status) && (await check())) return;
  throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
};

export interface RoundResult {
  orders: string[];
  routeId: string;
  intentId: string;
}

/**
 * One round of the scripted day: three orders, a plan approved, a route assigned and started,
 * a position, one stop delivered and one failed (the third stays pending, its view moving), and
 * a receipt created, reviewed, approved and issued through the provider fake.
 */
export const round = async (client: ChaosClient, t: ChaosTenant, label: string, options: { importRecords?: boolean } = {}): Promise<RoundResult> => {
  const { operator, admin, driver } = t;
  if (options.importRecords) {
    // An import of the connection's records runs beside the round (one at a time: 409 while one runs).
    const started = await client.send(admin, 'POST', `/v1/integrations/connections/${t.connectionId}/imports`, {}, { keyed: true });
    if (!(started.status === 409 && started.body?.code === 'import_running')) expectStatus('import', started, 202);
  }
  const serviceDate = today();
  const orders: string[] = [];
  for (let i = 0; i < 3; i++) {
    const body = {
      reference: `${label}-${i}`,
      serviceDate,
      recipient: { name: 'María José Pérez', phone: '+56 9 8765 4321', email: 'maria.perez@example.cl' },
      address: { text: `Av. Providencia ${1200 + i}`, latitude: -33.42 - i * 0.01, longitude: -70.61 - i * 0.01 },
    };
    orders.push(expectStatus('order', await client.send(operator, 'POST', '/v1/distribution/orders', body, { keyed: true }), 201).id);
  }
  const plan = expectStatus(
    'plan',
    await client.send(operator, 'POST', '/v1/routing/plans', { serviceDate, routes: [{ vehicleRouteId: 'V1', orderIds: orders }], unassignedOrderIds: [] }, { keyed: true }),
    201,
  );
  const planState = async () => (await client.send(operator, 'GET', `/v1/routing/plans/${plan.id}`)).body?.state === 'approved';
  await moved(client, operator, 'approve plan', await client.send(operator, 'POST', `/v1/routing/plans/${plan.id}/approve`, { version: 1 }), planState);
  const plate = `CH${label.replace(/[^A-Z0-9]/gi, '').slice(-6).toUpperCase()}`;
  const route = expectStatus(
    'route',
    await client.send(
      operator,
      'POST',
      '/v1/field/routes',
      { routePlanId: plan.id, vehicleRouteId: 'V1', workerId: driver.memberId, serviceDate, depotName: 'Bodega Quilicura', vehicle: { plate, label: 'Camión 3' } },
      { keyed: true },
    ),
    201,
  );
  const routeNow = async () => (await client.send(driver, 'GET', `/v1/field/routes/${route.id}`)).body;
  await moved(client, driver, 'start', await client.send(driver, 'POST', `/v1/field/routes/${route.id}/start`), async () => (await routeNow())?.state === 'started');
  const position = { latitude: -33.41, longitude: -70.6, recordedAt: new Date().toISOString() };
  expectStatus('position', await client.send(driver, 'POST', `/v1/field/routes/${route.id}/positions`, position), 202);
  const stops: { id: string; sequence: number }[] = (await routeNow()).stops;
  const [first, second] = [...stops].sort((a, b) => a.sequence - b.sequence);
  // Stop outcomes are idempotent by key (issue 29): a retry after the kill replays the first answer.
  expectStatus('deliver', await client.send(driver, 'POST', `/v1/field/routes/${route.id}/stops/${first.id}/deliver`, { evidence: [{ kind: 'photo', reference: `photos/${label}.jpg` }] }, { keyed: true }), 200);
  expectStatus('fail', await client.send(driver, 'POST', `/v1/field/routes/${route.id}/stops/${second.id}/fail`, { reason: 'Nadie en casa' }, { keyed: true }), 200);

  const intentPath = '/v1/customer-finance/invoice-intents';
  const intent = expectStatus('intent', await client.send(operator, 'POST', intentPath, invoiceBody(t.connectionId, null, { documentKind: 'receipt' }), { keyed: true }), 201);
  const intentState = async (state: string) => (await client.send(operator, 'GET', `${intentPath}/${intent.id}`)).body?.localState === state;
  await moved(client, operator, 'review', await client.send(operator, 'POST', `${intentPath}/${intent.id}/review`, { version: 1 }), () => intentState('reviewed'));
  expectStatus('approve', await client.send(admin, 'POST', `${intentPath}/${intent.id}/approve`, { version: 2 }, { keyed: true }), 200);
  const issued = await client.send(admin, 'POST', `${intentPath}/${intent.id}/issue`, undefined, { keyed: true });
  // Issue commits `submitting` before it calls the provider; cut after that commit, its retry
  // meets that state (409, docs/invoicing.md) and the reconciler settles the intent.
  if (!(issued.retried && issued.status === 409 && issued.body?.localState === 'submitting')) expectStatus('issue', issued, 200, 202);
  return { orders, routeId: route.id, intentId: intent.id };
};
