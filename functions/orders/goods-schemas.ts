import * as v from 'valibot';
import { MinorAmount, Quantity } from '../../shared/http/amount-schemas.ts';
import { Uuid } from '../../shared/http/schemas.ts';

/** decisions 14: the most lines the body may hold (400 past it, as any malformed body). */
export const MAX_ORDER_LINES = 100;
/**
 * decisions 16 (amends 14): an order with goods carries at most 60 lines, the most its guide may
 * carry (the SII's DTE_v10.xsd, `Detalle` maxOccurs 60): 61-100 are a well-formed body the SII
 * would refuse, 422 invalid_order naming body.lines.
 */
export const MAX_GOODS_LINES = 60;

/** A line of goods as the client sends it; quantity and price follow the invoicing rules (decisions 9). */
export const OrderLineInput = v.strictObject({
  variantId: v.optional(v.nullable(Uuid), null),
  description: v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')),
  quantity: Quantity,
  unitPriceMinor: v.optional(v.nullable(MinorAmount), null),
});
export type OrderLineInput = v.InferOutput<typeof OrderLineInput>;

export const OrderLine = v.pipe(
  v.object({
    position: v.pipe(v.number(), v.integer(), v.description('From 1, in the order sent')),
    variantId: v.pipe(v.nullable(Uuid), v.description('A variant record of the order’s connection')),
    description: v.string(),
    quantity: v.pipe(v.string(), v.description('Decimal text, at most 6 decimals, without trailing zeros')),
    unitPriceMinor: v.pipe(v.nullable(v.string()), v.description('Integer text of minor units (CLP: pesos), or null when the goods travel without a price')),
  }),
  v.title('OrderLine'),
);
export type OrderLine = v.InferOutput<typeof OrderLine>;

/** A line as stored: the answer's fields plus the variant's provider id, resolved at create (contract 3). */
export interface OrderLineRecord extends OrderLine {
  variantExternalId: string | null;
}
