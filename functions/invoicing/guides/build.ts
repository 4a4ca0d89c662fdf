import { randomUUID } from 'node:crypto';
import { addSeconds, nowIso } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import type { OrderRecord } from '../../orders/records.ts';
import type { IntentRecord, StoredLine } from '../intent-record.ts';
import { fromMicro, lineTotal, sum, toMicro } from '../money.ts';
import type { Transfer } from '../schemas.ts';

/**
 * An approved guide intent nobody issued by then (its queue message lost, its worker dead) is
 * issued by the scheduled reconciler: its first look is this long after it was made, so the worker
 * normally takes it first (docs/dispatch-guides.md).
 */
export const GUIDE_PICKUP_SECONDS = 300;

/** Guides are in pesos (provider-chile-v1 and the sandbox issue CLP only). */
const GUIDE_CURRENCY = { currency: 'CLP', minorUnitScale: 0 } as const;

/**
 * The guide's lines from the order's: a line without a price goes at 0 (netUnitValue 0 on the
 * wire, decisions 14); its variant's provider id was resolved when the order was made.
 */
const guideLines = (order: OrderRecord): StoredLine[] =>
  order.lines.map((line, index) => {
    const unitPriceMinor = line.unitPriceMinor ?? '0';
    const quantity = toMicro(line.quantity);
    return {
      position: index + 1,
      conceptKey: 'goods',
      description: line.description,
      quantity: fromMicro(quantity),
      unitPriceMinor,
      lineTotalMinor: lineTotal(quantity, BigInt(unitPriceMinor)).toString(),
      catalogItemId: line.variantId ?? null,
      creditedPosition: null,
      variantExternalId: line.variantExternalId ?? null,
    };
  });

/**
 * One stop's guide intent (decisions 14, 16): lines, customer and connection from the order (no
 * customer for an internal transfer, which names its destination office instead), straight
 * to `approved` at version 1, due at the reconciler after GUIDE_PICKUP_SECONDS.
 */
export const buildGuideIntent = (input: {
  tenantId: string;
  routeId: string;
  stopId: string;
  order: OrderRecord;
  transfer: Transfer;
  destinationOfficeId?: string | null;
  now: Date;
}): IntentRecord => {
  const { order, now } = input;
  // An internal transfer goes to the company's own office: the issuer is its own receiver, no client (decisions 16).
  const internal = input.transfer === 'internal_transfer';
  const lines = guideLines(order);
  const at = nowIso(now);
  return {
    id: newId(),
    tenantId: input.tenantId,
    connectionId: order.connectionId!,
    documentKind: 'dispatch_guide',
    customerId: internal ? null : (order.customerId ?? null),
    creditedInvoiceId: null,
    correlationId: randomUUID(),
    ...GUIDE_CURRENCY,
    totalMinor: sum(lines.map((line) => BigInt(line.lineTotalMinor))).toString(),
    localState: 'approved',
    providerState: 'not_sent',
    taxState: 'not_submitted',
    externalDocumentId: null,
    providerVersion: null,
    documentNumber: null,
    version: 1,
    createdAt: at,
    updatedAt: at,
    lines,
    customerExternalId: internal ? null : (order.customerExternalId ?? null),
    submission: null,
    providerReturnId: null,
    reconcileDueAt: nowIso(addSeconds(now, GUIDE_PICKUP_SECONDS)),
    reconcileAttempts: 0,
    orderId: order.id,
    routeId: input.routeId,
    stopId: input.stopId,
    transfer: input.transfer,
    destinationOfficeId: internal ? (input.destinationOfficeId ?? null) : null,
    shipping: {
      address: order.address.text,
      municipality: order.address.municipality ?? '',
      city: order.address.city ?? '',
      recipient: order.recipient.name,
    },
  };
};
