import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { fromMicro, lineTotal, toMicro } from '../../../functions/invoicing/money.ts';
import { CreateIntentBody, LineInput } from '../../../functions/invoicing/schemas.ts';

const total = (quantity: string, price: string) => lineTotal(toMicro(quantity), BigInt(price)).toString();

describe('invoice money', () => {
  it('rounds quantity x unit price half up, in integers', () => {
    expect(total('2.5', '1')).toBe('3');
    expect(total('0.5', '3')).toBe('2');
    expect(total('0.499999', '1')).toBe('0');
    expect(total('0.5', '1')).toBe('1');
    expect(total('0.333333', '10')).toBe('3');
    expect(total('1.000001', '999999999999999999')).toBe('1000000999999999999');
    expect(total('3', '1495')).toBe('4485');
  });

  it('keeps amounts beyond 2^53 exact (never a JS number)', () => {
    expect(total('1', '900719925474099312')).toBe('900719925474099312');
    expect(total('7', '123456789012345678')).toBe('864197523086419746');
  });

  it('agrees with exact rational rounding for every quantity and price', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 18n - 1n }), fc.bigInt({ min: 0n, max: 10n ** 18n - 1n }), (micro, price) => {
        const exact = micro * price; // in millionths of a minor unit
        const expected = exact / 1_000_000n + (exact % 1_000_000n >= 500_000n ? 1n : 0n);
        expect(lineTotal(micro, price)).toBe(expected);
        expect(toMicro(fromMicro(micro))).toBe(micro);
      }),
    );
  });

  it('takes a quantity as JSON number or decimal string, > 0, at most 6 decimals', () => {
    const line = (quantity: unknown) => v.safeParse(LineInput, { conceptKey: 'x', description: 'y', quantity, unitPriceMinor: '1' });
    expect(line(1.5).output).toMatchObject({ quantity: '1.5' });
    expect(line('0.000001').success).toBe(true);
    for (const bad of [0, '0', '0.0000001', -1, '1e3', 1e21, '1.', '.5', 'abc', null]) expect(line(bad).success, String(bad)).toBe(false);
    expect(v.safeParse(LineInput, { conceptKey: 'x', description: 'y', quantity: 1, unitPriceMinor: '1.5' }).success).toBe(false);
    expect(v.safeParse(LineInput, { conceptKey: 'x', description: 'y', quantity: 1, unitPriceMinor: 15 }).success).toBe(false);
  });

  it('refuses unknown fields and empty line lists', () => {
    const body = { connectionId: crypto.randomUUID(), documentKind: 'receipt', customerId: null, currency: 'CLP', minorUnitScale: 0, totalMinor: '1', lines: [] };
    expect(v.safeParse(CreateIntentBody, body).success).toBe(false);
    expect(v.safeParse(CreateIntentBody, { ...body, lines: [{ conceptKey: 'x', description: 'y', quantity: 1, unitPriceMinor: '1' }], extra: 1 }).success).toBe(false);
  });
});
