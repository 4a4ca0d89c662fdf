import type { FieldIssue } from '../../shared/errors.ts';
import { fromMicro, lineTotal, toMicro, travelsExactly } from '../../shared/money.ts';
import { findConnectionRecord } from '../integrations/connection-record.ts';
import { ConnectionNotReadyError } from '../invoicing/errors.ts';
import { recordExternalId } from '../invoicing/records.ts';
import { InvalidOrderError } from './errors.ts';
import { MAX_GOODS_LINES, type OrderLineRecord } from './goods-schemas.ts';
import type { CreateOrderBody } from './schemas.ts';

export interface Goods {
  lines: OrderLineRecord[];
  connectionId: string | null;
  customerId: string | null;
  customerExternalId: string | null;
}

const NO_GOODS: Goods = { lines: [], connectionId: null, customerId: null, customerExternalId: null };

/** Quantity and price must reach the provider as themselves on a guide (decisions 9's JSON-number limits). */
const wireIssues = (line: CreateOrderBody['lines'][number], path: string): FieldIssue[] => {
  const quantity = toMicro(line.quantity);
  if (!travelsExactly.quantity(quantity)) return [{ path: `${path}.quantity`, message: 'has more significant digits than the provider can receive exactly as a JSON number' }];
  if (line.unitPriceMinor === null) return [];
  const price = BigInt(line.unitPriceMinor);
  if (!travelsExactly.minor(price)) return [{ path: `${path}.unitPriceMinor`, message: 'exceeds 9007199254740991, the largest amount the provider receives exactly' }];
  if (!travelsExactly.minor(lineTotal(quantity, price))) return [{ path: `${path}.quantity`, message: 'times unitPriceMinor exceeds 9007199254740991, the largest line total the provider answers exactly' }];
  return [];
};

/**
 * The order's goods as stored (contract 3), every record resolved to its provider id now, so a
 * dispatch guide is built from the order alone. The connection must be the tenant's and active
 * (as for invoice intents: a revoked one can issue nothing, so an order for it is refused with
 * 422 connection_not_ready); the variants and the customer must be records of that connection.
 * Every problem is reported at once (422 invalid_order); nothing is written.
 */
export const resolveGoods = async (tenantId: string, body: CreateOrderBody): Promise<Goods> => {
  const needsConnection = body.lines.length > 0 || body.customerId !== null;
  if (body.connectionId === null) {
    if (!needsConnection) return NO_GOODS;
    const path = body.lines.length > 0 ? 'lines' : 'customerId';
    throw new InvalidOrderError('An order with goods or a customer names the connection whose records they are.', [
      { path: 'body.connectionId', message: `is required when ${path} ${path === 'lines' ? 'is not empty' : 'is set'}` },
    ]);
  }
  const connection = await findConnectionRecord(tenantId, body.connectionId);
  if (!connection) throw new ConnectionNotReadyError('no connection of this tenant has this id');
  if (connection.state !== 'active') throw new ConnectionNotReadyError('the connection is revoked');

  const issues: FieldIssue[] = [];
  if (body.lines.length > MAX_GOODS_LINES) issues.push({ path: 'body.lines', message: `has ${body.lines.length} lines; an order with goods carries at most ${MAX_GOODS_LINES}, the most its dispatch guide may carry` });
  const customerExternalId = body.customerId ? await recordExternalId(tenantId, connection.id, 'parties', body.customerId) : undefined;
  if (body.customerId && !customerExternalId) issues.push({ path: 'body.customerId', message: 'is not a party record of this connection' });
  const resolved = await Promise.all(
    body.lines.map(async (input, index): Promise<{ line: OrderLineRecord; issues: FieldIssue[] }> => {
      const path = `body.lines.${index}`;
      const variantExternalId = input.variantId ? await recordExternalId(tenantId, connection.id, 'variants', input.variantId) : undefined;
      const lineIssues = input.variantId && !variantExternalId ? [{ path: `${path}.variantId`, message: 'is not a variant record of this connection' }] : [];
      const line: OrderLineRecord = {
        position: index + 1,
        variantId: input.variantId,
        variantExternalId: variantExternalId ?? null,
        description: input.description,
        quantity: fromMicro(toMicro(input.quantity)),
        unitPriceMinor: input.unitPriceMinor,
      };
      return { line, issues: [...lineIssues, ...wireIssues(input, path)] };
    }),
  );
  issues.push(...resolved.flatMap((r) => r.issues));
  if (issues.length > 0) throw new InvalidOrderError('The order’s goods do not fit its connection and records.', issues);
  const lines = resolved.map((r) => r.line);
  return { lines, connectionId: connection.id, customerId: body.customerId, customerExternalId: customerExternalId ?? null };
};
