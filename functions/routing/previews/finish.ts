import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { nowIso } from '../../../shared/clock.ts';
import { outboxEvent } from '../../../shared/events/outbox.ts';
import { tableName } from '../../../shared/table/client.ts';
import type { Write } from '../../../shared/table/transaction.ts';
import type { Preview } from '../preview-schemas.ts';
import { previewItem, toPreview } from '../preview-record.ts';
import { COUNTED_FLAG, giveBackActivePlace } from './active-limit.ts';
import { previewExpiresAt } from './retention.ts';

/** Another writer ended the preview first (the sweeper, or a worker that took it over): theirs stands. */
export class PreviewOvertakenError extends Error {}

/** What of the stored item only the writers keep, beside the public fields (preview-record.ts `extra`). */
const EXTRA_FIELDS = ['request', 'attempt', 'deadlineAt', 'solvingSince', 'leaseToken', 'leaseUntil'] as const;

export const extraOf = (item: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(EXTRA_FIELDS.filter((name) => item[name] !== undefined).map((name) => [name, item[name]]));

/**
 * The one transaction that ends a preview (decisions 15): the preview `ready` or `failed`, off
 * the sweeper's index (the Put leaves gsi2 out), kept 30 days from now (its TTL, decisions 18),
 * its audit entry, its `routing.preview.completed` event, and its place among the tenant's
 * unfinished previews given back. `condition` says which writer may still end it.
 */
export const endPreviewWrites = (
  tenantId: string,
  item: Record<string, unknown>,
  end: Pick<Preview, 'state' | 'failure' | 'routes' | 'unassigned' | 'totals'> & Pick<Preview['solver'], 'elapsedMs' | 'stoppedBy'>,
  facts: { now: Date; action: string; requestId: string; condition: { expression: string; names?: Record<string, string>; values: Record<string, unknown> } },
): { preview: Preview; writes: Write[] } => {
  const current = toPreview(item);
  const { elapsedMs, stoppedBy, ...result } = end;
  const preview: Preview = { ...current, ...result, solver: { ...current.solver, elapsedMs, stoppedBy }, version: current.version + 1, updatedAt: nowIso(facts.now) };
  const event = outboxEvent(
    tenantId,
    'routing.preview.completed',
    {
      previewId: preview.id,
      serviceDate: preview.serviceDate,
      state: preview.state as 'ready' | 'failed',
      routeCount: preview.routes.length,
      unassignedCount: preview.unassigned.length,
    },
    facts.now,
  );
  const put: Write = {
    item: {
      Put: {
        TableName: tableName(),
        Item: previewItem(tenantId, preview, { ...extraOf(item), expiresAt: previewExpiresAt(facts.now) }),
        ConditionExpression: facts.condition.expression,
        ExpressionAttributeNames: facts.condition.names,
        ExpressionAttributeValues: facts.condition.values,
      },
    },
    onConditionFailed: () => new PreviewOvertakenError(`preview ${current.id} was ended or taken over by another writer`),
  };
  return {
    preview,
    writes: [
      put,
      auditWrite({ tenantId, actorId: SYSTEM_ACTOR_ID, action: facts.action, resourceId: preview.id, requestId: facts.requestId, now: facts.now }),
      event.write,
      ...(item[COUNTED_FLAG] === true ? [giveBackActivePlace(tenantId)] : []),
    ],
  };
};
