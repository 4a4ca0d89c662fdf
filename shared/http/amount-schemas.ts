import * as v from 'valibot';
import { MINOR_PATTERN, QUANTITY_PATTERN, quantityText } from '../money.ts';

/**
 * The input rules of decisions 9 for amounts and quantities, shared by every operation that
 * takes them (invoice lines, order lines), so the same value reads the same everywhere.
 */
export const MinorAmount = v.pipe(v.string('must be an integer string'), v.regex(MINOR_PATTERN, 'must be a non-negative integer string of at most 18 digits'));

/** A JSON number or decimal string, > 0, at most 6 decimals; answered as a decimal string. */
export const Quantity = v.pipe(
  v.union([v.number(), v.string()], 'must be a number or a decimal string'),
  v.transform(quantityText),
  v.regex(QUANTITY_PATTERN, 'must be a decimal of at most 12 integer digits and 6 decimals, without exponent'),
  v.check((q) => /[1-9]/.test(q), 'must be greater than 0'),
);
