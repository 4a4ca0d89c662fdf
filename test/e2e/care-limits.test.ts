import { describe, expect, it } from 'vitest';
import { TestTenant } from '../support/api.ts';
import { seedCareFleet } from '../support/care-fleet.ts';
import { useLocalStack } from '../support/stack.ts';

const stack = useLocalStack();

describe('care list limits', () => {
  // Seeding 3,000 items shares the run's one DynamoDB Local with the fuzz and chaos files: alone
  // it takes about 15 s, beside them it took over 120 s.
  it('answers 1,000 vehicles with 5,000 due items in one list, and no more than 1,000 vehicles', { timeout: 300_000 }, async () => {
    const tenant = await TestTenant.create(stack());
    const admin = await tenant.member('admin');
    const ids = await seedCareFleet(tenant.id, 1000);
    const extra = await tenant.call(admin, 'POST', '/v1/fleet/vehicles', { body: { plate: 'LIM9999', label: 'Móvil 1001' } });
    expect(extra.status).toBe(201);

    const list = await tenant.call(admin, 'GET', '/v1/fleet/care');
    expect(list.status, list.text.slice(0, 500)).toBe(200);
    const body = list.body;
    // The 1,000 oldest vehicles (ids are time ordered), not the one registered after them.
    expect(body.vehicles.map((v: { vehicleId: string }) => v.vehicleId)).toEqual(ids);
    expect(body.due).toHaveLength(5000);
    // One reading each: no daily distance, so the km items stand on the last reading.
    expect(body.kmLimited).toBe(true);
    const order = body.due.map((d: { daysLeft: number; label: string }) => [d.daysLeft, d.label]);
    const sorted = [...order].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    expect(order).toEqual(sorted);
    expect(body.due[0]).toMatchObject({ label: 'Móvil 0000', item: 'soap', status: 'expired', daysLeft: -3 });
    expect(body.due[1000]).toMatchObject({ label: 'Móvil 0000', item: 'service_km', status: 'soon', daysLeft: 0, km: { dueKm: 100_000, estimatedKm: 99_500, leftKm: 500 } });
    expect(body.due.at(-1)).toMatchObject({ label: 'Móvil 0999', item: 'service', status: 'soon', daysLeft: 20 });
    // A Lambda answers at most 6 MB: the largest list must fit.
    expect(list.text.length).toBeLessThan(6 * 1024 * 1024);
  });
});
