import { randomUUID } from 'node:crypto';
import { OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';
import { newId } from '../../shared/ids.ts';
import { putMember } from '../../shared/tenancy/members.ts';
import { putTenant } from '../../shared/tenancy/tenants.ts';
import type { LoadReceiver } from './receiver.ts';

/** Where the load goes: the gateway's base URL and a way to get a dev token for a subject. */
export interface LoadTarget {
  baseUrl: string;
  mint(subject: string, mfa: boolean): Promise<string>;
}

/** One tenant's seeded data: its members' tokens, and a route under way whose order's tracking page is viewed. */
export interface LoadTenant {
  index: number;
  id: string;
  subjects: { operator: string; driver: string };
  operator: string;
  driver: string;
  driverId: string;
  plate: string;
  orderId: string;
  routeId: string;
  trackingToken: string;
}

/** The tenant's service day: a route may only start on its day. */
export const serviceDay = (): string => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago' }).format(new Date());

export const orderBody = (reference: string) => ({
  reference,
  recipient: { name: 'María José Pérez', phone: '+56 9 8765 4321', email: 'maria.perez@example.cl' },
  address: { text: 'Av. Providencia 1234, Providencia', latitude: -33.4263, longitude: -70.6176 },
  serviceDate: serviceDay(),
});

export const api = async (target: LoadTarget, token: string, tenantId: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${target.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`seed: ${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text);
};

/** The events each tenant's destination receives: one per created order and one per delivered stop. */
export const subscribedEvents = ['distribution.order.created', 'field.stop.delivered'];

/** Members made as `npm run admin` makes them; the rest through the API, as a tenant's team would. */
const seedTenant = async (target: LoadTarget, index: number, receiver: LoadReceiver): Promise<LoadTenant> => {
  const id = newId();
  const subjects = { admin: `load-admin-${id}`, operator: `load-operator-${id}`, driver: `load-driver-${id}` };
  await runAs(OPERATOR, () => putTenant({ id, name: `Carga ${index} SpA` }));
  await runAs(OPERATOR, () => putMember({ tenantId: id, subject: subjects.admin, role: 'admin', firstName: 'Ada' }));
  await runAs(OPERATOR, () => putMember({ tenantId: id, subject: subjects.operator, role: 'operator', firstName: 'Olga' }));
  const driver = await runAs(OPERATOR, () => putMember({ tenantId: id, subject: subjects.driver, role: 'driver', firstName: 'Diego' }));
  const admin = await target.mint(subjects.admin, true);
  const operator = await target.mint(subjects.operator, false);
  const driverToken = await target.mint(subjects.driver, false);

  const { secret } = await api(target, admin, id, 'POST', '/v1/webhooks/endpoints', { url: `${receiver.url}/${index}`, eventTypes: subscribedEvents });
  receiver.trust(index, secret.value);
  const plate = `LOAD${String(index).padStart(2, '0')}`;
  await api(target, admin, id, 'POST', '/v1/fleet/vehicles', { plate, label: 'Furgón de carga' });

  const order = await api(target, operator, id, 'POST', '/v1/distribution/orders', orderBody(`SEED-${index}`));
  const plan = await api(target, operator, id, 'POST', '/v1/routing/plans', { serviceDate: serviceDay(), routes: [{ vehicleRouteId: 'V1', orderIds: [order.id] }] });
  await api(target, operator, id, 'POST', `/v1/routing/plans/${plan.id}/approve`, { version: 1 });
  const route = await api(target, operator, id, 'POST', '/v1/field/routes', { routePlanId: plan.id, vehicleRouteId: 'V1', workerId: driver.id, serviceDate: serviceDay(), depotName: 'Bodega Quilicura', vehicle: { plate, label: 'Furgón de carga' } });
  await api(target, driverToken, id, 'POST', `/v1/field/routes/${route.id}/start`);
  await api(target, driverToken, id, 'POST', `/v1/field/routes/${route.id}/positions`, { latitude: -33.43, longitude: -70.63, recordedAt: new Date().toISOString() });
  const trackingToken = (order.trackingUrl as string).split('/t/')[1];
  return { index, id, subjects: { operator: subjects.operator, driver: subjects.driver }, operator, driver: driverToken, driverId: driver.id, plate, orderId: order.id, routeId: route.id, trackingToken };
};

/** The projection follows the stream: a tracking page is only viewable once it built the view. */
const waitForView = async (target: LoadTarget, token: string): Promise<void> => {
  const deadline = Date.now() + 30_000;
  while ((await fetch(`${target.baseUrl}/v1/track/${token}`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`seed: the tracking view of ${token} was not built in 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

export const seedTenants = async (target: LoadTarget, count: number, receiver: LoadReceiver): Promise<LoadTenant[]> => {
  const tenants: LoadTenant[] = [];
  for (let i = 0; i < count; i++) tenants.push(await seedTenant(target, i, receiver));
  for (const tenant of tenants) await waitForView(target, tenant.trackingToken);
  return tenants;
};
