import * as v from 'valibot';
import { normaliseRut } from '../../shared/chile/rut.ts';
import { epochSeconds } from '../../shared/clock.ts';
import { UnprocessableError } from '../../shared/errors.ts';
import { DateTime } from '../../shared/http/schemas.ts';
import { tableName } from '../../shared/table/client.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import type { Write } from '../../shared/table/transaction.ts';

/**
 * The receipt of goods (Ley 19.983, arts. 4 b) and 5 c); decisions 14 and 16): who received the
 * goods at the stop, with their RUT, and where. It is personal data: the stop shows it to the
 * tenant's members who may read the route except viewers (a driver only on their own routes),
 * and it goes nowhere else: not into events or webhooks, the tracking view, logs, audit entries
 * or problem details. It lives in an item of its own beside the stop (`RECEIPT#{stopId}`), which
 * the table's TTL erases 5 years after delivery, and an admin may erase it sooner.
 */
const text = (max: number) =>
  v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));

/** Recibos_v10.xsd: `Recinto` (the place of delivery) is at most 80 characters. */
export const MAX_PLACE = 80;

export const ReceivedByInput = v.strictObject({
  name: text(100),
  /** Any common writing ("12.345.678-5", "123456785", "12345678-k"); checked and normalised at delivery (422 invalid_rut). */
  rut: v.pipe(v.string('must be a string'), v.maxLength(20, 'must be at most 20 characters')),
  place: text(MAX_PLACE),
});
export type ReceivedByInput = v.InferOutput<typeof ReceivedByInput>;

/**
 * The declaration the receiver signs (Recibos_v10.xsd, `Declaracion`, with the text the SII
 * fixes for it): the service shows it with every receipt, since the signature given with the
 * delivery is given under it.
 */
export const RECEIPT_DECLARATION =
  'El acuse de recibo que se declara en este acto, de acuerdo a lo dispuesto en la letra b) del Art. 4, y la letra c) del Art. 5 de la Ley 19.983, acredita que la entrega de mercaderías o servicio(s) prestado(s) ha(n) sido recibido(s).';

export const ReceivedBy = v.pipe(
  v.object({
    name: v.string(),
    rut: v.pipe(v.string(), v.description('digits-hyphen-check digit, upper-case K (decisions 10)')),
    place: v.string(),
    receivedAt: v.pipe(DateTime, v.description('The stop’s delivery time (its outcomeAt)')),
    declaration: v.pipe(v.string(), v.description('The fixed text of Ley 19.983 the receiver signed (decisions 16)')),
  }),
  v.title('ReceivedBy'),
);
export type ReceivedBy = v.InferOutput<typeof ReceivedBy>;
/** What the delivery gives; the stop adds the time and the declaration. */
export type Receipt = Omit<ReceivedBy, 'receivedAt' | 'declaration'>;

/** A RUT whose form or modulo-11 check digit is wrong; the detail never repeats the value. */
export class InvalidRutError extends UnprocessableError {
  constructor(path: string) {
    super('The RUT is not valid: its check digit does not match, or it is not a RUT.', 'invalid_rut', [{ path, message: 'must be a RUT with a valid check digit' }]);
  }
}

/** The receipt as the stop keeps it, or null without one; throws 422 invalid_rut before anything is read or written. */
export const receiptOf = (input: ReceivedByInput | null | undefined, path = 'body.receivedBy.rut'): Receipt | null => {
  if (!input) return null;
  const rut = normaliseRut(input.rut);
  if (!rut) throw new InvalidRutError(path);
  return { name: input.name, rut, place: input.place };
};

export const RECEIPT_ENTITY = 'stopReceipt';
/** decisions 16: receivers are erased 5 years after delivery. */
export const RECEIPT_YEARS = 5;

/** The TTL (`expiresAt`, epoch seconds): the delivery's instant, 5 calendar years on. */
export const receiptExpiresAt = (receivedAt: string): number => {
  const at = new Date(receivedAt);
  at.setUTCFullYear(at.getUTCFullYear() + RECEIPT_YEARS);
  return epochSeconds(at);
};

/** The receipt's item, written in the delivery's transaction. */
export const receiptWrite = (tenantId: string, routeId: string, stopId: string, receipt: Receipt, receivedAt: string): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: { ...opsKeys.stopReceipt(tenantId, routeId, stopId), entity: RECEIPT_ENTITY, tenantId, routeId, stopId, ...receipt, receivedAt, expiresAt: receiptExpiresAt(receivedAt) },
    },
  },
});

/** The receipt as the stop shows it; null once erased or past its TTL (DynamoDB deletes late). */
export const receiptView = (item: Record<string, unknown> | undefined, now: Date): ReceivedBy | null => {
  if (!item || typeof item.name !== 'string' || typeof item.expiresAt !== 'number' || item.expiresAt <= epochSeconds(now)) return null;
  return { name: item.name, rut: item.rut as string, place: item.place as string, receivedAt: item.receivedAt as string, declaration: RECEIPT_DECLARATION };
};

/** The route partition's receipt items, by stop: read by the route's one Query with its stops. */
export const receiptsByStop = (items: Record<string, unknown>[], now: Date): Map<string, ReceivedBy> =>
  new Map(items.filter((item) => item.entity === RECEIPT_ENTITY).flatMap((item) => {
    const view = receiptView(item, now);
    return view ? [[item.stopId as string, view] as const] : [];
  }));

/**
 * A receipt stored inside the stop item, as before decisions 16: shown until erased. It has no
 * TTL of its own (docs/goods-and-receipts.md: move such receipts to their items).
 */
export const storedReceipt = (value: unknown): ReceivedBy | null =>
  value && typeof value === 'object' ? { ...(value as Omit<ReceivedBy, 'declaration'>), declaration: RECEIPT_DECLARATION } : null;

/** decisions 16: viewers read routes without their receivers. */
export const receiversHiddenFrom = (role: string): boolean => role === 'viewer';

export const withoutReceivers = <R extends { stops: Array<{ receivedBy: ReceivedBy | null }> }>(route: R): R => ({
  ...route,
  stops: route.stops.map((stop) => ({ ...stop, receivedBy: null })),
});
