import { UnprocessableError } from '../../shared/errors.ts';

/**
 * DynamoDB refuses an item over 400 KB (409,600 bytes): a write of one is a ValidationException,
 * which would reach the client as a 500. A plan is measured before anything is read or written,
 * as DynamoDB counts it (docs: "Item sizes and formats"): each attribute name and string in
 * UTF-8 bytes, a number at most 21 bytes, 3 bytes per list or map plus 1 per element.
 */
export const DYNAMODB_ITEM_LIMIT = 409_600;

/**
 * What a new plan may take of it: the rest is for what later writes add to the same item (its
 * approval, its planned arrivals' keys, the routes it assigns).
 */
export const MAX_PLAN_ITEM_BYTES = DYNAMODB_ITEM_LIMIT - 16 * 1024;

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/** An attribute value's size as DynamoDB counts it (an upper bound for numbers). */
export const attributeBytes = (value: unknown): number => {
  if (value === undefined) return 0;
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number') return 21;
  if (Array.isArray(value)) return 3 + value.reduce((n: number, element) => n + 1 + attributeBytes(element), 0);
  if (value instanceof Uint8Array) return value.byteLength;
  return 3 + Object.entries(value as Record<string, unknown>).reduce((n, [name, v]) => (v === undefined ? n : n + 1 + utf8(name) + attributeBytes(v)), 0);
};

/** The stored item's size: its attributes' names and values (undefined ones are not stored). */
export const itemBytes = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce((n, [name, value]) => (value === undefined ? n : n + utf8(name) + attributeBytes(value)), 0);

/**
 * 422 naming `body.routes` for a plan that could not be stored whole (decisions 18): its item,
 * or its answer, which the idempotency record keeps as text.
 */
export const assertPlanFits = (item: Record<string, unknown>, answer: unknown): void => {
  const bytes = Math.max(itemBytes(item), utf8(JSON.stringify(answer)));
  if (bytes <= MAX_PLAN_ITEM_BYTES) return;
  throw new UnprocessableError('The plan is too large to be stored whole.', 'invalid_plan', [
    { path: 'body.routes', message: `the plan takes ${bytes} bytes stored, more than the ${MAX_PLAN_ITEM_BYTES} a plan may take: split it into plans of fewer routes or orders` },
  ]);
};
