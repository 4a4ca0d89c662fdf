import { UnprocessableError, type FieldIssue } from '../../shared/errors.ts';
import { findConnectionRecord } from '../integrations/connection-record.ts';
import { ConnectionRevokedError } from '../integrations/errors.ts';
import { readIssueOptions } from '../integrations/issue-options.ts';
import type { Transfer } from '../invoicing/schemas.ts';
import type { OrderRecord } from '../orders/records.ts';

/** The SII's limit of detail lines on a guide (DTE_v10.xsd: `Detalle` maxOccurs 60). */
export const MAX_GUIDE_LINES = 60;

/** decisions 16: what the SII needs of the guides is missing; `errors` names each order and field, and no guide was made. */
export class InvalidGuidesError extends UnprocessableError {
  constructor(errors: FieldIssue[]) {
    super(`${errors.length} problems keep the route’s guides from being made; errors names each order and field. No guide was made.`, 'invalid_guides', errors);
  }
}

/**
 * Every order's problems for a guide of `transfer`, one entry per order and field: a sale
 * (IndTraslado 1) names its receiver and carries a price on every line; any guide carries at most
 * 60 lines (orders made before that limit may have more).
 */
export const orderIssues = (orders: OrderRecord[], transfer: Transfer): FieldIssue[] => {
  const issues: FieldIssue[] = [];
  for (const order of orders) {
    const path = `orders.${order.id}`;
    if (order.lines.length > MAX_GUIDE_LINES) issues.push({ path: `${path}.lines`, message: `has ${order.lines.length} lines; a guide carries at most ${MAX_GUIDE_LINES}` });
    if (transfer !== 'sale') continue;
    if (!order.customerId) issues.push({ path: `${path}.customerId`, message: 'is required for a sale guide, which names its receiver' });
    const unpriced = order.lines.filter((line) => line.unitPriceMinor === null).map((line) => line.position);
    if (unpriced.length > 0) {
      issues.push({ path: `${path}.lines.unitPriceMinor`, message: `is required on every line of a sale guide; the lines at positions ${unpriced.join(', ')} have none` });
    }
  }
  return issues;
};

/**
 * decisions 16: an internal transfer names the office that receives the goods: an active office
 * of each connection's issue options (read live from the provider) other than the one it issues
 * from. Other transfers name none.
 */
export const destinationIssues = async (tenantId: string, transfer: Transfer, destinationOfficeId: string | undefined, connectionIds: Set<string>): Promise<FieldIssue[]> => {
  const path = 'body.destinationOfficeId';
  if (transfer !== 'internal_transfer') return destinationOfficeId === undefined ? [] : [{ path, message: 'is only for an internal_transfer' }];
  if (destinationOfficeId === undefined) return [{ path, message: 'is required for an internal_transfer: the office of the company that receives the goods' }];
  for (const id of connectionIds) {
    const connection = await findConnectionRecord(tenantId, id);
    if (!connection || connection.state !== 'active' || !connection.sealedToken) throw new ConnectionRevokedError();
    if (connection.issueSettings?.officeId === destinationOfficeId) return [{ path, message: 'must be another office than the one the guide is issued from (the connection’s officeId)' }];
    const { offices } = await readIssueOptions(connection);
    if (!offices.some((office) => office.id === destinationOfficeId)) return [{ path, message: `is not an active office of connection ${id}` }];
  }
  return [];
};
