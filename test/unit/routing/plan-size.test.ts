import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPlan } from '../../../functions/routing/plans.ts';
import { assertPlanFits, itemBytes, MAX_PLAN_ITEM_BYTES } from '../../../functions/routing/plan-size.ts';
import { UnprocessableError } from '../../../shared/errors.ts';

describe('the size of a plan as DynamoDB counts it', () => {
  it('counts names and strings in UTF-8 bytes, 3 per list or map and 1 per element, at most 21 per number', () => {
    // pk 2 + 3, 'ñandú' 6 + 7 bytes, list 5 + 3 + (1 + 1) + (1 + 21), map 1 + 3 + (1 + 1 + 1)
    expect(itemBytes({ pk: 'T#1', ñandú: 'ñandú', list: ['a', 12], m: { k: true }, gone: undefined })).toBe(5 + 13 + 5 + 3 + 2 + 22 + 1 + 3 + 3);
  });
});

describe('a client-computed plan too large to store whole (decisions 18)', () => {
  // 100 routes of 300 orders: ~1.1 MB as an item, far past DynamoDB's 400 KB.
  const body = {
    serviceDate: '2026-11-23',
    routes: Array.from({ length: 100 }, () => ({ orderIds: Array.from({ length: 300 }, () => randomUUID()) })),
    unassignedOrderIds: [],
  };

  it('is refused with a 422 naming body.routes before any order is read (no table is reachable here)', async () => {
    const refused = await createPlan(randomUUID(), body, new Date()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnprocessableError);
    expect(refused).toMatchObject({ status: 422, code: 'invalid_plan', extensions: { errors: [{ path: 'body.routes', message: expect.stringContaining(`more than the ${MAX_PLAN_ITEM_BYTES}`) }] } });
  });

  it('lets a plan of 1,000 orders through', () => {
    const plan = { routes: Array.from({ length: 10 }, (_, r) => ({ vehicleRouteId: `R${r + 1}`, orderIds: Array.from({ length: 100 }, () => randomUUID()) })) };
    expect(() => assertPlanFits({ pk: 'T#x', sk: 'PLAN#y', ...plan }, plan)).not.toThrow();
  });
});
