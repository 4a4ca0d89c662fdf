import { describe, expect, it } from 'vitest';
import { routeUpdatedEvent } from '../../../shared/events/route-updated.ts';

const order = (n: number) => `0192f7a0-3c4e-7a10-8b2d-5e6f7a8b9c${String(n).padStart(2, '0')}`;
const route = { id: '0192f7a3-3333-7d40-9e5f-8a9b0c1d2e34', serviceDate: '2026-03-02', version: 4 };

describe('field.route.updated (decisions 17)', () => {
  it('names every stop still on the route in sequence, leaving out removed ones', () => {
    const stops = [
      { orderId: order(3), sequence: 3, state: 'pending' },
      { orderId: order(1), sequence: 1, state: 'delivered' },
      { orderId: order(9), sequence: 2, state: 'removed' },
      { orderId: order(2), sequence: 2, state: 'cancelled' },
    ];
    const { event, write } = routeUpdatedEvent('tenant-1', route, stops, new Date('2026-03-02T12:00:00Z'), { addedOrderIds: [order(3)], removedOrderIds: [order(9)] });
    expect(event.type).toBe('field.route.updated');
    expect(event.data).toEqual({ routeId: route.id, serviceDate: '2026-03-02', version: 4, stopCount: 3, orderIds: [order(1), order(2), order(3)], addedOrderIds: [order(3)], removedOrderIds: [order(9)] });
    expect(write.item.Put?.Item?.type).toBe('field.route.updated');
  });

  it('has empty added and removed lists when the route is only re-ordered', () => {
    const { event } = routeUpdatedEvent('tenant-1', route, [{ orderId: order(1), sequence: 1, state: 'pending' }], new Date());
    expect(event.data.addedOrderIds).toEqual([]);
    expect(event.data.removedOrderIds).toEqual([]);
  });

  it('refuses data outside the catalogue schema', () => {
    expect(() => routeUpdatedEvent('tenant-1', { ...route, id: 'not-a-uuid' }, [], new Date())).toThrow();
  });
});
