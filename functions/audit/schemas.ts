import * as v from 'valibot';
import { DateTime, Limit, Uuid } from '../../shared/http/schemas.ts';

/** An operationId (createVehicle) or a job's own action name (resendWebhookDelivery). */
const Action = v.pipe(v.string(), v.regex(/^[a-z][A-Za-z0-9]{0,99}$/, 'must be an operation name such as createVehicle'));

export const AuditEntry = v.pipe(
  v.object({
    id: Uuid,
    tenantId: Uuid,
    /** The member who made the change, or the nil UUID for a scheduled job. */
    actorId: Uuid,
    /** The x-request-id of the request that made the change (a job's own run id). */
    requestId: v.string(),
    resourceId: Uuid,
    action: v.string(),
    outcome: v.picklist(['succeeded']),
    createdAt: DateTime,
  }),
  v.title('AuditEntry'),
);
export type AuditEntry = v.InferOutput<typeof AuditEntry>;

export const AuditQuery = v.strictObject({
  before: v.optional(Uuid),
  limit: Limit,
  resourceId: v.optional(Uuid),
  actorId: v.optional(Uuid),
  action: v.optional(Action),
});
export type AuditQuery = v.InferOutput<typeof AuditQuery>;

export const AuditPage = v.object({ items: v.array(AuditEntry), nextCursor: v.nullable(Uuid) });
