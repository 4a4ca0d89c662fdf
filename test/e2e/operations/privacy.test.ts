import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { call, TestTenant } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { created, orderBody, routeWithOrders, tokenOf, waitForView } from './support.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';

const stack = useLocalStack();
const DAY = 86_400_000;

describe('privacy of the tracking link', () => {
  it('makes tokens of at least 128 random bits, base64url, one per order', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const tokens = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const token = tokenOf(created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody(`TOK-${i}`) })));
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
      tokens.add(token);
    }
    expect(tokens.size).toBe(5);
  });

  it('answers 404 for unknown and malformed tokens, never 400', async () => {
    for (const token of ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'x', '%20..%2F', 'a'.repeat(3000)]) {
      const json = await call(stack(), 'GET', `/v1/track/${token}`);
      expect(json.status, token).toBe(404);
      expect(json.headers.get('content-type')).toBe('application/problem+json');
      const page = await call(stack(), 'GET', `/t/${token}`);
      expect(page.status, token).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('<html lang="es">');
    }
  });

  it('shows the position rounded and only while moving, and hides one older than 10 minutes', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const driver = await tenant.member('driver', { firstName: 'Pedro' });
    const { orders, route } = await routeWithOrders(tenant, operator, driver, [
      [-33.44, -70.65],
      [-33.43, -70.64],
      [-33.42, -70.63],
    ]);
    const token = tokenOf(orders[2]);
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/start`);
    const stale = new Date(Date.now() - 11 * 60_000).toISOString();
    expect((await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/positions`, { body: { latitude: -33.4512, longitude: -70.6498, recordedAt: stale } })).status).toBe(202);
    // The stale position still feeds the estimate, but is not shown.
    const view = await waitForView(stack(), token, (v) => v.eta !== null);
    expect(view.approximatePosition).toBeNull();
    const fresh = new Date().toISOString();
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/positions`, { body: { latitude: -33.4512345, longitude: -70.6498765, recordedAt: fresh } });
    const shown = await waitForView(stack(), token, (v) => v.approximatePosition?.updatedAt === fresh);
    expect(shown.approximatePosition).toEqual({ latitude: -33.451, longitude: -70.65, updatedAt: fresh });
    const page = await call(stack(), 'GET', `/t/${token}`);
    expect(page.text).not.toContain('-33.4512');
    expect(page.text).toContain('<svg');
    // An older position arriving late is accepted and ignored.
    const late = await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/positions`, { body: { latitude: -33.5, longitude: -70.7, recordedAt: stale } });
    expect(late.body).toEqual({ accepted: false });
    // Once closed, no position, no driver.
    await tenant.call(driver, 'POST', `/v1/field/routes/${route.id}/stops/${route.stops[2].id}/deliver`, { body: {} });
    const closed = await waitForView(stack(), token, (v) => v.state === 'delivered');
    expect(closed).toMatchObject({ approximatePosition: null, driver: null, eta: null });
  });

  it('keeps the link for 7 days after closing, then answers 404 on both routes', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const order = created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('WEEK-1') }));
    const token = tokenOf(order);
    await tenant.call(operator, 'POST', `/v1/distribution/orders/${order.id}/cancel`, { body: { version: 1 } });
    await waitForView(stack(), token, (v) => v.closedAt !== null);
    const setClosedAt = (at: Date) =>
      runAs(OPERATOR, () => table().send(new UpdateCommand({ TableName: tableName(), Key: opsKeys.trackingView(token), UpdateExpression: 'SET closedAt = :at', ExpressionAttributeValues: { ':at': at.toISOString() } })));
    await setClosedAt(new Date(Date.now() - 6 * DAY));
    expect((await call(stack(), 'GET', `/v1/track/${token}`)).status).toBe(200);
    expect((await call(stack(), 'GET', `/t/${token}`)).status).toBe(200);
    await setClosedAt(new Date(Date.now() - 7 * DAY - 1000));
    expect((await call(stack(), 'GET', `/v1/track/${token}`)).status).toBe(404);
    const page = await call(stack(), 'GET', `/t/${token}`, { headers: { 'accept-language': 'en-US,en;q=0.9' } });
    expect(page.status).toBe(404);
    expect(page.text).toContain('<html lang="en">');
  });

  it('sends privacy and cache headers no longer than refreshSeconds', async () => {
    const tenant = await TestTenant.create(stack());
    const operator = await tenant.member('operator');
    const token = tokenOf(created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('HDR-1') })));
    const view = await waitForView(stack(), token, () => true);
    const json = await call(stack(), 'GET', `/v1/track/${token}`);
    expect(json.headers.get('cache-control')).toBe(`public, max-age=${view.refreshSeconds}`);
    expect(json.headers.get('referrer-policy')).toBe('no-referrer');
    const page = await call(stack(), 'GET', `/t/${token}`, { headers: { 'accept-language': 'en' } });
    expect(page.headers.get('cache-control')).toBe(`public, max-age=${view.refreshSeconds}`);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-robots-tag')).toBe('noindex');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("img-src 'self' data:");
    expect(page.headers.get('refresh')).toBe(String(view.refreshSeconds));
    expect(page.text).toContain('Track your order');
    expect(page.text).not.toMatch(/<script|<link rel="stylesheet"|https?:\/\//);
    expect(Buffer.byteLength(page.text)).toBeLessThan(20 * 1024);
  });
});
