import { describe, expect, it } from 'vitest';
import { readShipping } from '../../../shared/ports/billing-provider/provider-shapes.ts';

const base = { id: 701, shippingDate: 1_763_856_000, address: 'San Pablo 3000', municipality: '', city: 'Santiago', recipient: null, office: { href: 'x', id: '1' }, shipping_type: { href: 'x', id: '1' }, guide: { href: 'x', id: '1001' } };
const line = (quantity: unknown, variant: unknown = null) => ({ href: 'x', id: 1, quantity, variantStock: 0, variantCost: 0, variant, note: variant ? '' : 'Caja' });

describe('a shipping read from the provider’s JSON (decisions 19)', () => {
  it('reads an expanded details page with its count and offset: the first 25 of more', () => {
    const items = Array.from({ length: 25 }, () => line(2, { href: 'x', id: '5' }));
    const shipping = readShipping({ ...base, details: { href: 'x', count: 30, limit: 25, offset: 0, items } });
    expect([shipping.details!.items.length, shipping.details!.count, shipping.details!.offset, shipping.details!.invalid]).toEqual([25, 30, 0, []]);
    expect(shipping.details!.items[0]).toEqual({ quantity: 2, variantId: '5', note: null });
    expect([shipping.address, shipping.municipality, shipping.recipient]).toEqual(['San Pablo 3000', null, null]);
  });

  it('keeps a line that does not parse as invalid, never turning the lines into none or fewer', () => {
    const shipping = readShipping({ ...base, details: { href: 'x', count: 2, limit: 25, offset: 0, items: [line(1), line('n/a')] } });
    expect([shipping.details!.items.length, shipping.details!.invalid.map((i) => i.reason)]).toEqual([1, ['provider shipping detail with a quantity that does not parse']]);
    for (const bad of [{ href: 'x', count: 2 }, { href: 'x', items: 'no' }, { href: 'x', count: 'two', items: [] }]) {
      expect(readShipping({ ...base, details: bad }).details!.invalid.length, JSON.stringify(bad)).toBeGreaterThan(0);
    }
  });

  it('a details link alone is not expanded (null: the lines are read from details.json)', () => {
    expect(readShipping({ ...base, details: { href: 'https://api.bsale.io/v1/shippings/701/details.json' } }).details).toBeNull();
    expect(readShipping(base).details).toBeNull();
  });
});
