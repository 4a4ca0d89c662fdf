import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { table, tableName } from '../../shared/table/client.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { TestTenant } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';
import { created, orderBody, routeWithOrders, tokenOf, waitForView } from '../e2e/operations/support.ts';
import { spanishShortDay, upcomingServiceDate } from '../e2e/routes/support.ts';
import { ARTIFACTS, launch, openPage } from './browser.ts';

const stack = useLocalStack();
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let browser: Browser;
/** Links in four states: pending, pending on a planned route (its window), on the way with a position, delivered. */
const links = { pending: '', planned: '', moving: '', delivered: '' };
let plannedDay = '';

beforeAll(async () => {
  browser = await launch();
  const tenant = await TestTenant.create(stack(), 'Distribuidora Los Andes SpA');
  const operator = await tenant.member('operator');
  const driver = await tenant.member('driver', { firstName: 'Camila' });
  links.pending = tokenOf(created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('PED-2026-0042') })));
  const { orders, route } = await routeWithOrders(tenant, operator, driver, [
    [-33.437, -70.634],
    [-33.43, -70.62],
    [-33.425, -70.61],
    [-33.42, -70.6],
  ]);
  // A route from a plan with the preview's arrivals, not started: its window of two hours (tomorrow,
  // so that the window has not gone by whenever the test runs), inside the order's own window
  // (10:00-14:00): planned at 10:15, it shows 10:00 - 12:00, not 09:15 - 11:15 (decisions 17).
  const day = upcomingServiceDate();
  plannedDay = day;
  const plannedOrder = created(
    await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: { ...orderBody('PED-2026-0043', undefined, undefined, day), timeWindows: [{ from: '10:00', to: '14:00' }] } }),
  );
  const plannedPlan = created(await tenant.call(operator, 'POST', '/v1/routing/plans', { body: { serviceDate: day, routes: [{ vehicleRouteId: 'V1', orderIds: [plannedOrder.id] }] } }));
  await table().send(new UpdateCommand({ TableName: tableName(), Key: opsKeys.plan(tenant.id, plannedPlan.id), UpdateExpression: 'SET plannedArrivals = :p', ExpressionAttributeValues: { ':p': { [plannedOrder.id]: `${day}T10:15:00-03:00` } } }));
  created(await tenant.call(operator, 'POST', `/v1/routing/plans/${plannedPlan.id}/approve`, { body: { version: 1 } }), 200);
  created(await tenant.call(operator, 'POST', '/v1/field/routes', { body: { routePlanId: plannedPlan.id, vehicleRouteId: 'V1', workerId: driver.id, serviceDate: day, depotName: 'Bodega Quilicura', vehicle: { plate: 'PLAN01', label: 'Camión 1' } } }));
  links.planned = tokenOf(plannedOrder);
  await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
  await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/positions`, { body: { latitude: -33.4489, longitude: -70.6693, recordedAt: new Date().toISOString() } });
  await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[0].id}/deliver`, { body: {} });
  links.delivered = tokenOf(orders[0]);
  links.moving = tokenOf(orders[3]);
  await waitForView(stack(), links.moving, (v) => v.approximatePosition !== null && v.stopsBefore === 2);
  await waitForView(stack(), links.delivered, (v) => v.state === 'delivered');
  await waitForView(stack(), links.pending, (v) => v.state === 'pending');
  await waitForView(stack(), links.planned, (v) => v.eta !== null);
}, 240_000);

afterAll(async () => {
  await browser?.close();
});

const url = (token: string) => `${stack().baseUrl}/t/${token}`;
const onlyGateway = (requests: string[]) => {
  const origin = new URL(stack().baseUrl).origin;
  expect(requests.length).toBeGreaterThan(0);
  for (const request of requests) expect(new URL(request).origin, request).toBe(origin);
};

describe('the tracking page in Chromium', () => {
  for (const [name, viewport] of [
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1280, height: 800 }],
  ] as const) {
    it(`shows state, window, stops before, driver and position on a ${name}, asking nothing of other hosts`, async () => {
      const watched = await openPage(browser, { viewport, isMobile: name === 'phone', deviceScaleFactor: name === 'phone' ? 2 : 1 });
      try {
        const response = await watched.page.goto(url(links.moving));
        expect(response?.status()).toBe(200);
        const text = await watched.page.locator('main').innerText();
        expect(text).toContain('Distribuidora Los Andes SpA'.toUpperCase());
        expect(text).toMatch(/En camino/);
        expect(text).toMatch(/Llegada estimada\s*\d{2}:\d{2} - \d{2}:\d{2}/);
        expect(text).toMatch(/Entregas antes de la tuya\s*2/);
        expect(text).toContain('Camila');
        await expect(watched.page.locator('svg[role="img"]').count()).resolves.toBe(1);
        await watched.page.screenshot({ path: join(ARTIFACTS, `tracking-on-the-way-${name}.png`), fullPage: true });
        expect(watched.consoleErrors).toEqual([]);
        onlyGateway(watched.requests);
        // Nothing wider than the screen.
        const overflow = await watched.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);
      } finally {
        await watched.close();
      }
    });
  }

  it('renders the pending and delivered states, and English by Accept-Language', async () => {
    for (const [state, token, locale, expected] of [
      ['pending', links.pending, 'es-CL', /Pendiente[\s\S]*Entrega programada para el lunes, 23 de noviembre/],
      ['planned', links.planned, 'es-CL', new RegExp(`Pendiente[\\s\\S]*${spanishShortDay(plannedDay)}, 10:00 - 12:00`)],
      ['delivered', links.delivered, 'es-CL', /Entregado[\s\S]*Entregado el/],
      ['english', links.moving, 'en-GB', /On the way[\s\S]*Estimated arrival/],
    ] as const) {
      const watched = await openPage(browser, { viewport: { width: 390, height: 844 }, locale });
      try {
        await watched.page.goto(url(token));
        expect(await watched.page.locator('main').innerText()).toMatch(expected);
        await watched.page.screenshot({ path: join(ARTIFACTS, `tracking-${state}-phone.png`), fullPage: true });
        expect(watched.consoleErrors).toEqual([]);
        onlyGateway(watched.requests);
      } finally {
        await watched.close();
      }
    }
  });

  it('shows the same content with JavaScript disabled', async () => {
    const withJs = await openPage(browser);
    const withoutJs = await openPage(browser, { javaScriptEnabled: false });
    try {
      await withJs.page.goto(url(links.moving));
      await withoutJs.page.goto(url(links.moving));
      const a = await withJs.page.locator('main').innerText();
      const b = await withoutJs.page.locator('main').innerText();
      expect(b).toBe(a);
      expect(b).toContain('Camila');
      await withoutJs.page.screenshot({ path: join(ARTIFACTS, 'tracking-no-javascript.png'), fullPage: true });
    } finally {
      await withJs.close();
      await withoutJs.close();
    }
  });

  it('reloads itself at refreshSeconds (HTTP Refresh header, no script)', async () => {
    const previous = process.env.TRACKING_REFRESH_SCALE;
    process.env.TRACKING_REFRESH_SCALE = '0.04'; // 30 s while moving → 1 s
    const watched = await openPage(browser, { javaScriptEnabled: false });
    try {
      const loads: string[] = [];
      watched.page.on('load', () => loads.push(new Date().toISOString()));
      const response = await watched.page.goto(url(links.moving));
      expect(response?.headers().refresh).toBe('1');
      await expect.poll(() => loads.length).toBeGreaterThanOrEqual(2);
      expect(watched.requests.filter((r) => r.endsWith(`/t/${links.moving}`)).length).toBeGreaterThanOrEqual(2);
      expect(watched.consoleErrors).toEqual([]);
    } finally {
      await watched.close();
      if (previous === undefined) delete process.env.TRACKING_REFRESH_SCALE;
      else process.env.TRACKING_REFRESH_SCALE = previous;
    }
  });

  it('has no accessibility violation reported by axe-core, in any state', async () => {
    for (const [token, viewport] of [
      [links.moving, { width: 390, height: 844 }],
      [links.moving, { width: 1280, height: 800 }],
      [links.pending, { width: 390, height: 844 }],
      [links.planned, { width: 390, height: 844 }],
      [links.delivered, { width: 390, height: 844 }],
      ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', { width: 390, height: 844 }],
    ] as const) {
      // The page's CSP rightly refuses injected scripts; only this check's context sets it aside.
      const watched = await openPage(browser, { viewport, bypassCSP: true });
      try {
        await watched.page.goto(url(token));
        await watched.page.addScriptTag({ content: axeSource });
        const result = await watched.page.evaluate(async () => {
          const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe;
          return axe.run(document);
        });
        expect(result.violations.map((v) => `${v.id} (${v.nodes.length})`), token).toEqual([]);
      } finally {
        await watched.close();
      }
    }
  });

  it('answers an unknown link with an HTML 404 page', async () => {
    const watched = await openPage(browser, { viewport: { width: 390, height: 844 } });
    try {
      const response = await watched.page.goto(url('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
      expect(response?.status()).toBe(404);
      expect(await watched.page.locator('h1').innerText()).toBe('Enlace no disponible');
      await watched.page.screenshot({ path: join(ARTIFACTS, 'tracking-not-found-phone.png') });
      onlyGateway(watched.requests);
    } finally {
      await watched.close();
    }
  });
});
