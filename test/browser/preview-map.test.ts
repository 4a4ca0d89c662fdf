import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestTenant, type TestMember } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';
import { makeDepot, plannedDay } from '../e2e/routing-plans/support.ts';
import { launch, openPage } from './browser.ts';

const stack = useLocalStack();
const shots = mkdtempSync(join(tmpdir(), 'preview-map-'));

let browser: Browser;
let tenant: TestTenant;
let viewer: TestMember;
const previews = { day: '', big: '' };

beforeAll(async () => {
  browser = await launch();
  tenant = await TestTenant.create(stack(), 'Distribuidora Los Andes SpA');
  const admin = await tenant.member('admin');
  const operator = await tenant.member('operator');
  viewer = await tenant.member('viewer');
  const depot = await makeDepot(tenant, admin);
  previews.day = (await plannedDay(tenant, operator, depot.id, { routeCount: 6, stopsPerRoute: 9, unassignedCount: 4 })).id;
  previews.big = (await plannedDay(tenant, operator, depot.id, { routeCount: 40, stopsPerRoute: 25, unassignedCount: 12, concurrency: 8 })).id;
}, 300_000);

afterAll(async () => {
  await browser?.close();
});

/** Opens the map as a dispatcher's browser would, with the viewer's token, and measures what it drew. */
const look = async (previewId: string, shot: string) => {
  const url = `${stack().baseUrl}/v1/routing/previews/${previewId}/map.svg`;
  const watched = await openPage(browser, { extraHTTPHeaders: { authorization: `Bearer ${viewer.token}`, 'x-tenant-id': tenant.id } });
  try {
    const response = await watched.page.goto(url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('image/svg+xml; charset=utf-8');
    const drawn = await watched.page.evaluate(() => {
      const root = document.documentElement as unknown as SVGSVGElement;
      const boxes = (selector: string) => [...document.querySelectorAll<SVGGraphicsElement>(selector)].map((e) => e.getBBox());
      const legend = document.querySelector<SVGGraphicsElement>('.legend')!;
      return {
        namespace: root.namespaceURI,
        parserErrors: document.getElementsByTagName('parsererror').length,
        size: [root.width.baseVal.value, root.height.baseVal.value],
        routes: boxes('g.route').map((b) => b.width * b.height),
        stops: boxes('g.stop text').map((b) => b.height),
        legend: legend.getBBox().width,
        legendText: legend.textContent ?? '',
      };
    });
    await watched.page.setViewportSize({ width: Math.ceil(drawn.size[0]!), height: Math.ceil(drawn.size[1]!) });
    await watched.page.screenshot({ path: join(shots, shot), timeout: 60_000 });
    expect(watched.consoleErrors).toEqual([]);
    return { drawn, requests: watched.requests, url };
  } finally {
    await watched.close();
  }
};

describe('the preview map in Chromium', () => {
  it('renders a day of six routes: every route drawn, numbers readable, the legend there, and no request but the picture', async () => {
    const { drawn, requests, url } = await look(previews.day, 'preview-map-day.png');
    expect(drawn.namespace).toBe('http://www.w3.org/2000/svg');
    expect(drawn.parserErrors).toBe(0);
    expect(drawn.routes).toHaveLength(6);
    for (const area of drawn.routes) expect(area).toBeGreaterThan(0);
    expect(drawn.stops).toHaveLength(54);
    // A stop number at least 8 px tall at the default size.
    for (const height of drawn.stops) expect(height).toBeGreaterThanOrEqual(8);
    expect(drawn.legend).toBeGreaterThan(100);
    expect(drawn.legendText).toContain('6 rutas · 54 paradas');
    expect(drawn.legendText).toContain('Sin asignar (4)');
    expect(requests).toEqual([url]);
  });

  it('renders 40 routes and 1,000 stops', async () => {
    const { drawn, requests, url } = await look(previews.big, 'preview-map-40-routes.png');
    expect(drawn.parserErrors).toBe(0);
    expect(drawn.routes).toHaveLength(40);
    for (const area of drawn.routes) expect(area).toBeGreaterThan(0);
    expect(drawn.stops).toHaveLength(1000);
    expect(drawn.legendText).toContain('40 rutas · 1.000 paradas');
    expect(drawn.legendText).toContain('V40');
    expect(requests).toEqual([url]);
  }, 120_000);
});
