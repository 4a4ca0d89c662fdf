import { describe, expect, it } from 'vitest';
import { call } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';

const stack = useLocalStack({ env: { TRACKING_RATE_LIMIT_PER_MINUTE: '3' } });

describe('429 on the tracking routes, per client address', () => {
  it('answers problem+json for the view and HTML for the page, with Retry-After, past the limit', async () => {
    const token = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const statuses: number[] = [];
    let json;
    let page;
    // Until both answers are seen: a minute boundary inside the loop can reset the window once,
    // so at most 6 requests pass before both routes answer 429.
    for (let i = 0; i < 12 && !(json && page); i++) {
      const response = await call(stack(), 'GET', i % 2 === 0 ? `/v1/track/${token}` : `/t/${token}`);
      statuses.push(response.status);
      if (response.status === 429 && i % 2 === 0) json = response;
      if (response.status === 429 && i % 2 === 1) page = response;
    }
    expect(statuses.filter((s) => s === 404).length, statuses.join(',')).toBeGreaterThanOrEqual(3);
    expect(json, statuses.join(',')).toBeDefined();
    expect(page, statuses.join(',')).toBeDefined();
    expect(json!.headers.get('content-type')).toBe('application/problem+json');
    expect(json!.body.code).toBe('rate_limited');
    expect(Number(json!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(page!.headers.get('content-type')).toMatch(/^text\/html/);
    expect(Number(page!.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(page!.text).toContain('Demasiadas solicitudes');
  });

  it('leaves the other routes alone', async () => {
    for (let i = 0; i < 5; i++) expect((await call(stack(), 'GET', '/v1/fleet/vehicles')).status).toBe(401);
  });
});
