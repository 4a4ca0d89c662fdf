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
    for (let i = 0; i < 6; i++) {
      const response = await call(stack(), 'GET', i % 2 === 0 ? `/v1/track/${token}` : `/t/${token}`);
      statuses.push(response.status);
      if (response.status === 429 && i % 2 === 0) json = response;
      if (response.status === 429 && i % 2 === 1) page = response;
    }
    // A minute boundary inside the loop can reset the window once.
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(6);
    expect(statuses, statuses.join(',')).toContain(429);
    if (json) {
      expect(json.headers.get('content-type')).toBe('application/problem+json');
      expect(json.body.code).toBe('rate_limited');
      expect(Number(json.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    if (page) {
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(Number(page.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(page.text).toContain('Demasiadas solicitudes');
    }
    expect(json ?? page).toBeDefined();
  });

  it('leaves the other routes alone', async () => {
    for (let i = 0; i < 5; i++) expect((await call(stack(), 'GET', '/v1/fleet/vehicles')).status).toBe(401);
  });
});
