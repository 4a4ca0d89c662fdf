import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN_VERIFY_HEADER, VIEWER_HOST_HEADER } from '../../shared/http/edge-headers.ts';
import { functionGroups } from '../../functions/index.ts';
import { LocalSecrets, setSecrets } from '../../shared/ports/secrets.ts';
import { call, TestTenant, type TestMember } from '../support/api.ts';
import { eventually } from '../support/receiver.ts';
import { useLocalStack } from '../support/stack.ts';
import { created, orderBody, tokenOf } from './operations/support.ts';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:delivery-ops-origin-verify-AbCdEf';
const FIRST = 'first-origin-secret-value-0123456789abcdef';
const SECOND = 'second-origin-secret-value-fedcba9876543210';
const THIRD = 'third-origin-secret-value-00112233445566778';

// The check on, as the CDK stack sets it; links from the viewer's host, as in the cloud.
const stack = useLocalStack({ env: { ORIGIN_VERIFY_SECRET_ARN: SECRET_ARN, PUBLIC_BASE_URL: '' } });
const store = new LocalSecrets();
setSecrets(store);

const through = (value: string | undefined, extra: Record<string, string> = {}) => ({ headers: { ...(value === undefined ? {} : { [ORIGIN_VERIFY_HEADER]: value }), ...extra } });

let tenant: TestTenant;
let operator: TestMember;
let token: string;

beforeAll(async () => {
  store.set(SECRET_ARN, FIRST);
  tenant = await TestTenant.create(stack());
  operator = await tenant.member('operator');
  token = tokenOf(created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('ORIGIN-1'), ...through(FIRST) })));
  // The link's view follows the stream: until it is made, the tracking routes answer 404 whatever the header.
  await eventually(() => call(stack(), 'GET', `/v1/track/${token}`, through(FIRST)), (response) => response.status === 200);
});

afterEach(() => {
  store.set(SECRET_ARN, FIRST);
  store.set(SECRET_ARN, undefined, 'AWSPREVIOUS');
});

const routes = () => [
  { name: 'a member operation', send: (h: ReturnType<typeof through>) => tenant.call(operator, 'GET', '/v1/distribution/orders', h) },
  { name: 'the public tracking view', send: (h: ReturnType<typeof through>) => call(stack(), 'GET', `/v1/track/${token}`, h) },
  { name: 'the public tracking page', send: (h: ReturnType<typeof through>) => call(stack(), 'GET', `/t/${token}`, h) },
  { name: 'the OpenAPI document', send: (h: ReturnType<typeof through>) => call(stack(), 'GET', '/v1/openapi.json', h) },
];

const expectRefused = (response: Awaited<ReturnType<typeof call>>, what: string) => {
  expect(response.status, what).toBe(403);
  expect(response.headers.get('content-type'), what).toBe('application/problem+json');
  expect(response.body, what).toMatchObject({ status: 403, code: 'origin_not_verified', type: 'urn:delivery-ops:problem:origin_not_verified' });
  expect(response.body.requestId, what).toBe(response.headers.get('x-request-id'));
};

describe('the origin check (requests only through CloudFront)', () => {
  it('guards every endpoint group, each function reading the secret itself', async () => {
    for (const group of functionGroups) {
      const operation = group.operations[0]!;
      const path = operation.path.replace(/\{[^}]+\}/g, '01a20000-0000-7000-8000-000000000000');
      const refused = await tenant.call(operator, operation.method, path, { idempotencyKey: false, ...through('not-the-secret') });
      expectRefused(refused, `${group.name}: ${operation.method} ${path}`);
      const passed = await tenant.call(operator, operation.method, path, { idempotencyKey: false, ...through(FIRST) });
      expect(passed.body?.code, `${group.name}: ${operation.method} ${path}`).not.toBe('origin_not_verified');
    }
  });

  it('refuses a request without the origin header on every route, public ones included', async () => {
    for (const route of routes()) expectRefused(await route.send(through(undefined)), route.name);
  });

  it('refuses a wrong value, an empty one, and one that only shares a prefix', async () => {
    for (const value of ['not-the-secret', '', FIRST.slice(0, -1), `${FIRST}x`]) {
      for (const route of routes()) expectRefused(await route.send(through(value)), `${route.name} with "${value}"`);
    }
  });

  it('lets the current value through to every route', async () => {
    for (const route of routes()) {
      const response = await route.send(through(FIRST));
      expect(response.status, `${route.name}: ${response.text.slice(0, 200)}`).toBeLessThan(400);
    }
  });

  it('accepts the current and the previous value during a rotation, and neither once rotated past', async () => {
    store.set(SECRET_ARN, SECOND);
    store.set(SECRET_ARN, FIRST, 'AWSPREVIOUS');
    for (const value of [SECOND, FIRST]) {
      for (const route of routes()) expect((await route.send(through(value))).status, `${route.name} with ${value.slice(0, 6)}`).toBeLessThan(400);
    }
    // The next rotation: the first value is no stage any more.
    store.set(SECRET_ARN, THIRD);
    store.set(SECRET_ARN, SECOND, 'AWSPREVIOUS');
    for (const route of routes()) expectRefused(await route.send(through(FIRST)), `${route.name} with the retired value`);
    expect((await routes()[0].send(through(THIRD))).status).toBe(200);
  });

  it('changes nothing when it refuses', async () => {
    const before = (await tenant.call(operator, 'GET', '/v1/distribution/orders?limit=100', through(FIRST))).body.items.length;
    expectRefused(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('ORIGIN-REFUSED') }), 'create without the header');
    const after = (await tenant.call(operator, 'GET', '/v1/distribution/orders?limit=100', through(FIRST))).body.items.length;
    expect(after).toBe(before);
  });
});

describe('absolute tracking links from the viewer host', () => {
  it('builds trackingUrl on the host CloudFront passed on, in every answer that shows the order', async () => {
    const host = 'd111111abcdef8.cloudfront.net';
    const order = created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('ORIGIN-HOST'), ...through(FIRST, { [VIEWER_HOST_HEADER]: host }) }));
    expect(order.trackingUrl).toBe(`https://${host}/t/${tokenOf(order)}`);
    const read = await tenant.call(operator, 'GET', `/v1/distribution/orders/${order.id}`, through(FIRST, { [VIEWER_HOST_HEADER]: 'Tracking.Example.CL' }));
    expect(read.body.trackingUrl).toBe(`https://tracking.example.cl/t/${tokenOf(order)}`);
    // The link opens through the same gateway once the host is replaced by ours.
    const page = await call(stack(), 'GET', new URL(read.body.trackingUrl).pathname, through(FIRST));
    expect(page.status).toBeLessThan(500);
  });

  it('keeps links relative when no host came with the request, or the host is not a plain host name', async () => {
    const order = created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('ORIGIN-NOHOST'), ...through(FIRST) }));
    expect(order.trackingUrl).toBe(`/t/${tokenOf(order)}`);
    for (const host of ['evil.example/phish?', 'a b', 'user@evil.example', 'evil.example#']) {
      const read = await tenant.call(operator, 'GET', `/v1/distribution/orders/${order.id}`, through(FIRST, { [VIEWER_HOST_HEADER]: host }));
      expect(read.body.trackingUrl, host).toBe(`/t/${tokenOf(order)}`);
    }
  });

  it('lets PUBLIC_BASE_URL win over the viewer host', async () => {
    process.env.PUBLIC_BASE_URL = 'https://seguimiento.example.cl/';
    try {
      const order = created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('ORIGIN-BASE'), ...through(FIRST, { [VIEWER_HOST_HEADER]: 'd111111abcdef8.cloudfront.net' }) }));
      expect(order.trackingUrl).toBe(`https://seguimiento.example.cl/t/${tokenOf(order)}`);
    } finally {
      process.env.PUBLIC_BASE_URL = '';
    }
  });

  it('ignores the viewer host while the origin check is off: nothing vouches for it then', async () => {
    delete process.env.ORIGIN_VERIFY_SECRET_ARN;
    try {
      const order = created(await tenant.call(operator, 'POST', '/v1/distribution/orders', { body: orderBody('ORIGIN-OFF'), headers: { [VIEWER_HOST_HEADER]: 'evil.example' } }));
      expect(order.trackingUrl).toBe(`/t/${tokenOf(order)}`);
    } finally {
      process.env.ORIGIN_VERIFY_SECRET_ARN = SECRET_ARN;
    }
  });
});

describe('paths no operation has (the $default catch-all route)', () => {
  it('answers 404 problem+json with a request id for any method, like every other error', async () => {
    for (const [method, path] of [
      ['GET', '/nothing-here'],
      ['POST', '/v1/distribution/orders/x/y/z'],
      ['DELETE', '/v1/openapi.json'],
      ['GET', '/v1/track/a/b'],
    ]) {
      const response = await call(stack(), method, path, through(FIRST));
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.body).toMatchObject({ status: 404, code: 'not_found', type: 'urn:delivery-ops:problem:not_found' });
      expect(response.body.requestId).toBe(response.headers.get('x-request-id'));
    }
  });
});
