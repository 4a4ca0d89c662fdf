import { DAY_SECONDS, nowIso } from '../../shared/clock.ts';
import { NotFoundError, StateConflictError, UnprocessableError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { getEndpointRecord } from './endpoints.ts';
import { findRecoveryRecord, newRecoveryWrites, type RecoveryRecord } from './recovery-record.ts';
import { DELIVERY_RETENTION_DAYS } from './settings.ts';

const windowError = (path: string, message: string) => new UnprocessableError(`The recovery window is not valid: ${message}.`, 'invalid_recovery_window', [{ path, message }]);

/**
 * POST .../recover: a recovery of the destination's dead deliveries created in [since, until),
 * with the destination's lock (one at a time). Nothing is requeued here: the table stream sees
 * the new recovery and queues its first page (functions/webhooks/worker/recovery-page.ts).
 * An `until` ahead of the clock is read as now: deliveries not yet made cannot be dead.
 */
export const startRecovery = async (tenantId: string, endpointId: string, body: { since: string; until?: string }, now: Date): Promise<{ record: RecoveryRecord; writes: Write[] }> => {
  const endpoint = await getEndpointRecord(tenantId, endpointId);
  if (endpoint.state !== 'active') throw new StateConflictError('The destination is disabled; reactivate it (PATCH active: true) before recovering its deliveries.', 'destination_disabled');
  const since = new Date(body.since);
  const until = body.until && new Date(body.until) < now ? new Date(body.until) : now;
  if (now.getTime() - since.getTime() > DELIVERY_RETENTION_DAYS * DAY_SECONDS * 1000) throw windowError('body.since', `must be at most ${DELIVERY_RETENTION_DAYS} days back`);
  if (since >= until) throw windowError(body.until ? 'body.until' : 'body.since', 'since must be before until');
  const record: RecoveryRecord = {
    id: newId(),
    tenantId,
    endpointId,
    since: nowIso(since),
    until: nowIso(until),
    state: 'running',
    counts: { matched: 0, requeued: 0 },
    createdAt: nowIso(now),
    finishedAt: null,
    step: 0,
    cursor: null,
    pageDeliveryIds: [],
  };
  return { record, writes: newRecoveryWrites(record, now) };
};

export const getRecoveryRecord = async (tenantId: string, endpointId: string, recoveryId: string): Promise<RecoveryRecord> => {
  const record = await findRecoveryRecord(tenantId, endpointId, recoveryId);
  if (!record) throw new NotFoundError('No recovery with this id for this destination.');
  return record;
};
