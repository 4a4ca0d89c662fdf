import { randomUUID } from 'node:crypto';
import type { Request } from 'autocannon';
import { eventKey } from './receiver.ts';
import { orderBody, serviceDay, type LoadTenant } from './seed.ts';

/** What one client carries through a cycle of the mix; autocannon starts each cycle from `{}`. */
interface Cycle {
  t?: LoadTenant;
  key?: string;
  body?: string;
  orderId?: string;
  planId?: string;
  routeId?: string;
  stopId?: string;
  broken?: boolean;
}

interface Step {
  name: string;
  method: 'GET' | 'POST';
  as: 'operator' | 'driver' | 'public';
  expect: number;
  path(c: Cycle): string;
  body?(c: Cycle): unknown;
  /** A retry of the previous request: same idempotency key, same body. */
  retry?: boolean;
  taken?(c: Cycle, body: any, tally: Tally): void;
}

/**
 * One cycle of the mix, as an operator and a driver of one tenant work through a day: read an
 * order, create one (and retry the create with the same key, as a client does after a lost
 * answer), plan, approve and assign it, read the route, start it, report a position, deliver,
 * and a recipient views the tracking page and its JSON. 12 requests: 5 reads, 7 writes.
 */
const steps: Step[] = [
  { name: 'GET order', method: 'GET', as: 'operator', expect: 200, path: (c) => `/v1/distribution/orders/${c.t!.orderId}` },
  {
    name: 'POST order', method: 'POST', as: 'operator', expect: 201, path: () => '/v1/distribution/orders',
    body: () => orderBody(`LOAD-${randomUUID().slice(0, 8)}`),
    taken: (c, body, tally) => {
      c.orderId = body.id;
      tally.orders.add(body.id);
      tally.expectedEvents.add(eventKey('distribution.order.created', { orderId: body.id }));
    },
  },
  {
    name: 'POST order (retry, same key)', method: 'POST', as: 'operator', expect: 201, path: () => '/v1/distribution/orders', retry: true,
    taken: (c, body, tally) => {
      if (body.id !== c.orderId) tally.error('POST order (retry, same key)', 201, `replay answered order ${body.id}, not ${c.orderId}: a duplicate`);
      else tally.replays++;
    },
  },
  {
    name: 'POST plan', method: 'POST', as: 'operator', expect: 201, path: () => '/v1/routing/plans',
    body: (c) => ({ serviceDate: serviceDay(), routes: [{ vehicleRouteId: 'V1', orderIds: [c.orderId] }] }),
    taken: (c, body) => (c.planId = body.id),
  },
  { name: 'POST approve', method: 'POST', as: 'operator', expect: 200, path: (c) => `/v1/routing/plans/${c.planId}/approve`, body: () => ({ version: 1 }) },
  {
    name: 'POST route', method: 'POST', as: 'operator', expect: 201, path: () => '/v1/field/routes',
    body: (c) => ({ routePlanId: c.planId, vehicleRouteId: 'V1', workerId: c.t!.driverId, serviceDate: serviceDay(), depotName: 'Bodega Quilicura', vehicle: { plate: c.t!.plate, label: 'Furgón de carga' } }),
    taken: (c, body) => {
      c.routeId = body.id;
      c.stopId = body.stops[0].id;
    },
  },
  { name: 'GET route', method: 'GET', as: 'operator', expect: 200, path: (c) => `/v1/field/routes/${c.routeId}` },
  { name: 'POST start', method: 'POST', as: 'driver', expect: 200, path: (c) => `/v1/field/routes/${c.routeId}/start` },
  { name: 'POST position', method: 'POST', as: 'driver', expect: 202, path: (c) => `/v1/field/routes/${c.routeId}/positions`, body: () => ({ latitude: -33.43, longitude: -70.63, recordedAt: new Date().toISOString() }) },
  {
    name: 'POST deliver', method: 'POST', as: 'driver', expect: 200, path: (c) => `/v1/field/routes/${c.routeId}/stops/${c.stopId}/deliver`,
    body: () => ({ evidence: [{ kind: 'photo', reference: 'photos/1.jpg' }] }),
    taken: (c, _body, tally) => tally.expectedEvents.add(eventKey('field.stop.delivered', { stopId: c.stopId })),
  },
  { name: 'GET /t/{token}', method: 'GET', as: 'public', expect: 200, path: (c) => `/t/${c.t!.trackingToken}` },
  { name: 'GET /v1/track/{token}', method: 'GET', as: 'public', expect: 200, path: (c) => `/v1/track/${c.t!.trackingToken}` },
];

export const stepNames = steps.map((s) => s.name);

/** Answers counted per step: expected, 429 (counted apart), anything else is an error and kept to print. */
export class Tally {
  readonly perStep = new Map(steps.map((s) => [s.name, { ok: 0, limited: 0, errors: 0 }]));
  readonly samples: string[] = [];
  readonly orders = new Set<string>();
  readonly expectedEvents = new Set<string>();
  replays = 0;

  error(step: string, status: number, detail: string): void {
    this.perStep.get(step)!.errors++;
    if (this.samples.length < 20) this.samples.push(`${step}: ${status} ${detail.slice(0, 300)}`);
  }

  total(field: 'ok' | 'limited' | 'errors'): number {
    return [...this.perStep.values()].reduce((sum, s) => sum + s[field], 0);
  }

  reset(): void {
    for (const s of this.perStep.values()) Object.assign(s, { ok: 0, limited: 0, errors: 0 });
  }
}

const headersFor = (step: Step, c: Cycle): Record<string, string> => {
  if (step.as === 'public') return {};
  return {
    authorization: `Bearer ${step.as === 'driver' ? c.t!.driver : c.t!.operator}`,
    'x-tenant-id': c.t!.id,
    ...(step.method === 'POST' ? { 'content-type': 'application/json', 'idempotency-key': step.retry ? c.key! : (c.key = randomUUID()) } : {}),
  };
};

/** The mix as autocannon `requests`: each client goes through the cycle, tenants taking turns per cycle. */
export const mixRequests = (tenants: LoadTenant[], tally: Tally): Request[] => {
  let turn = 0;
  return steps.map((step, i) => ({
    method: step.method,
    setupRequest: (request: Request, context: object): Request => {
      const c = context as Cycle;
      if (i === 0) c.t = tenants[turn++ % tenants.length];
      // A refused prerequisite (a 429) leaves nothing to act on: autocannon starts the client's
      // next cycle when setupRequest gives no request.
      else if (c.broken) return undefined as unknown as Request;
      const body = step.retry ? c.body : step.body ? JSON.stringify(step.body(c)) : undefined;
      if (step.method === 'POST') c.body = body;
      return { ...request, method: step.method, path: step.path(c), headers: headersFor(step, c), body };
    },
    onResponse: (status: number, body: string, context: object) => {
      const c = context as Cycle;
      const counts = tally.perStep.get(step.name)!;
      if (status === step.expect) {
        counts.ok++;
        if (step.taken) step.taken(c, JSON.parse(body), tally);
        return;
      }
      c.broken = true;
      if (status === 429) counts.limited++;
      else tally.error(step.name, status, body);
    },
  }));
};
