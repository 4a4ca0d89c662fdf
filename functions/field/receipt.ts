import * as v from 'valibot';
import { normaliseRut } from '../../shared/chile/rut.ts';
import { UnprocessableError } from '../../shared/errors.ts';
import { DateTime } from '../../shared/http/schemas.ts';

/**
 * The receipt of goods (Ley 19.983, art. 4; decisions 14): who received the goods at the stop,
 * with their RUT, and where. It is personal data: the stop shows it to the tenant's members who
 * may read the route (a driver only on their own routes), and it goes nowhere else: not into
 * events or webhooks, the tracking view, logs, audit entries or problem details.
 */
const text = (max: number) =>
  v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));

export const ReceivedByInput = v.strictObject({
  name: text(100),
  /** Any common writing ("12.345.678-5", "123456785", "12345678-k"); checked and normalised at delivery (422 invalid_rut). */
  rut: v.pipe(v.string('must be a string'), v.maxLength(20, 'must be at most 20 characters')),
  place: text(100),
});
export type ReceivedByInput = v.InferOutput<typeof ReceivedByInput>;

export const ReceivedBy = v.pipe(
  v.object({
    name: v.string(),
    rut: v.pipe(v.string(), v.description('digits-hyphen-check digit, upper-case K (decisions 10)')),
    place: v.string(),
    receivedAt: v.pipe(DateTime, v.description('The stop’s delivery time (its outcomeAt)')),
  }),
  v.title('ReceivedBy'),
);
export type ReceivedBy = v.InferOutput<typeof ReceivedBy>;

/** A RUT whose form or modulo-11 check digit is wrong; the detail never repeats the value. */
export class InvalidRutError extends UnprocessableError {
  constructor(path: string) {
    super('The RUT is not valid: its check digit does not match, or it is not a RUT.', 'invalid_rut', [{ path, message: 'must be a RUT with a valid check digit' }]);
  }
}

/** The receipt as the stop keeps it, or null without one; throws 422 invalid_rut before anything is read or written. */
export const receiptOf = (input: ReceivedByInput | null | undefined, path = 'body.receivedBy.rut'): Omit<ReceivedBy, 'receivedAt'> | null => {
  if (!input) return null;
  const rut = normaliseRut(input.rut);
  if (!rut) throw new InvalidRutError(path);
  return { name: input.name, rut, place: input.place };
};

/** The stored receipt (old stops have none). */
export const storedReceipt = (value: unknown): ReceivedBy | null => (value && typeof value === 'object' ? (value as ReceivedBy) : null);
