import { tenantPk } from './keys.ts';

/**
 * Key builders of the audit log, beside keys.ts so that areas can grow without editing each
 * other's file. A tenant's entries share one partition, newest first by their UUIDv7 id; the
 * three filters of `GET /v1/audit` each have an index partition of their own, so a filtered
 * page is a Query of exactly the matching entries, never a scan of the tenant's log.
 */
const partition = (tenantId: string) => `${tenantPk(tenantId)}#AUDIT`;
const prefix = 'AUDIT#';

export const auditKeys = {
  partition,
  prefix,
  entry: (tenantId: string, entryId: string) => ({ pk: partition(tenantId), sk: `${prefix}${entryId}` }),
  /** gsi1: one resource's history. */
  byResource: (tenantId: string, resourceId: string) => `${partition(tenantId)}#R#${resourceId}`,
  /** gsi2: what one member (or the system actor) did. */
  byActor: (tenantId: string, actorId: string) => `${partition(tenantId)}#U#${actorId}`,
  /** gsi3: every entry of one operation. */
  byAction: (tenantId: string, action: string) => `${partition(tenantId)}#A#${action}`,
  /** The index attributes of one entry: the sort key is the entry's own sort key in every index. */
  indexes: (tenantId: string, entry: { id: string; resourceId: string; actorId: string; action: string }) => ({
    gsi1pk: auditKeys.byResource(tenantId, entry.resourceId),
    gsi1sk: `${prefix}${entry.id}`,
    gsi2pk: auditKeys.byActor(tenantId, entry.actorId),
    gsi2sk: `${prefix}${entry.id}`,
    gsi3pk: auditKeys.byAction(tenantId, entry.action),
    gsi3sk: `${prefix}${entry.id}`,
  }),
} as const;
