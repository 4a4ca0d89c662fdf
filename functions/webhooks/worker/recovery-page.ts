import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { epochSeconds, nowIso } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import type { RecoveryPageMessage } from '../../../shared/ports/queue.ts';
import { ports } from '../../../shared/ports/registry.ts';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { commit, TransactionConflictError, type Write } from '../../../shared/table/transaction.ts';
import { findEndpointRecord } from '../endpoints.ts';
import { findRecoveryRecord, progressWrite, RecoveryMovedError, releaseLockWrites, renewLeaseWrite, takeOverLease, type RecoveryRecord } from '../recovery-record.ts';
import { webhookSettings } from '../settings.ts';
import { StateConflictError } from '../../../shared/errors.ts';

/** decisions 5: at most this many requeued attempts a second per destination. */
export const RECOVERY_ATTEMPTS_PER_SECOND = 10;
/** Requeued deliveries per page (five seconds of attempts): one transaction with the progress and the audit entry. */
export const RECOVERY_PAGE_SIZE = 50;
/** Deliveries a page reads at most (DynamoDB's Limit counts them before the filter). */
const RECOVERY_READ_BUDGET = 200;
/** A delivery's id carries its event's time, at most this much before the delivery was made (the fan-out's lag). */
const FAN_OUT_LAG_MS = 3600_000;

/** The worker's action in the audit log (decisions 12: a job names its own): one entry per committed page. */
export const RECOVERY_PAGE_AUDIT_ACTION = 'recoverWebhookDeliveriesPage';

export type RecoveryPageOutcome = 'applied' | 'finished' | 'resent' | 'redelivery' | 'abandoned';

/**
 * Leases a recovery may run out in a row (no page committed between them) and still be resumed:
 * the next time the sweeper finds it, it is finished where it is. A page that keeps failing (and
 * is dead-lettered each time) cannot hold its destination's lock and the tenant's slot for ever.
 */
export const MAX_RECOVERY_RESUMES = 3;

class DeliveryMovedError extends StateConflictError {
  constructor() {
    super('A delivery of the page changed meanwhile.', 'delivery_moved');
  }
}

/** The smallest UUIDv7 string of a millisecond: ids sort by time, so it bounds a key range. */
const idFloor = (ms: number): string => {
  const hex = Math.max(0, ms).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
};

const pageMessage = (record: RecoveryRecord): RecoveryPageMessage => ({
  tenantId: record.tenantId,
  recoveryPage: { endpointId: record.endpointId, recoveryId: record.id, step: record.step },
});

/** The page's deliveries, a tenth of a second apart in whole-second buckets: 10 per second at most. */
const delayOf = (index: number): number => Math.floor(index / RECOVERY_ATTEMPTS_PER_SECOND);
/** The next page waits until this page's last bucket has passed. */
const pauseAfter = (count: number): number => Math.ceil(count / RECOVERY_ATTEMPTS_PER_SECOND);

/** Sends the page's deliveries with their delays, then the next page after them. */
const sendPage = async (record: RecoveryRecord): Promise<void> => {
  const { queue } = ports();
  for (const [index, deliveryId] of record.pageDeliveryIds.entries()) await queue.send({ tenantId: record.tenantId, deliveryId }, delayOf(index));
  if (record.state === 'running') await queue.send(pageMessage(record), pauseAfter(record.pageDeliveryIds.length));
};

interface Found {
  matched: number;
  requeue: { deliveryId: string }[];
  /** The last delivery looked at, or null when the window is read to its end. */
  cursor: string | null;
}

/**
 * Oldest first through the destination's deliveries (gsi1), from the cursor to the window's end:
 * dead ones created in the window are matched; those under the manual-retry limit are requeued,
 * up to a page. A delivery left by the limit or the budget is where the next page starts.
 */
const readPage = async (record: RecoveryRecord, now: Date): Promise<Found> => {
  const lower = record.cursor ?? idFloor(new Date(record.since).getTime() - FAN_OUT_LAG_MS);
  const upper = idFloor(new Date(record.until).getTime() + 1);
  const { Items = [], LastEvaluatedKey } = await table().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :lower AND :upper',
      FilterExpression: '#state = :dead AND tenantId = :tenant AND createdAt >= :since AND createdAt < :until AND expiresAt > :epoch',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':pk': keys.deliveryByEndpointPartition(record.endpointId),
        // BETWEEN is inclusive: a cursor's own delivery is skipped by the `>` below.
        ':lower': `${keys.deliveryPrefix}${lower}`,
        ':upper': `${keys.deliveryPrefix}${upper}`,
        ':dead': 'dead',
        ':tenant': record.tenantId,
        ':since': record.since,
        ':until': record.until,
        ':epoch': epochSeconds(now),
      },
      Limit: RECOVERY_READ_BUDGET,
    }),
  );
  const found: Found = { matched: 0, requeue: [], cursor: null };
  for (const item of Items.filter((i) => record.cursor === null || (i.deliveryId as string) > record.cursor)) {
    found.matched++;
    if ((item.manualRetries as number) < webhookSettings.maxManualRetries) found.requeue.push({ deliveryId: item.deliveryId as string });
    if (found.requeue.length === RECOVERY_PAGE_SIZE) return { ...found, cursor: item.deliveryId as string };
  }
  return { ...found, cursor: LastEvaluatedKey ? String(LastEvaluatedKey.gsi1sk).slice(keys.deliveryPrefix.length) : null };
};

/** One delivery made pending again for one manual attempt at its slot; only if still dead and under the limit. */
const requeueWrite = (record: RecoveryRecord, deliveryId: string, at: string): Write => {
  const due = keys.deliveryDue(deliveryId, at);
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.delivery(record.tenantId, deliveryId),
        // The destination copy goes (the attempt reads the destination as it is); `requeuedBy`
        // tells the fan-out that this worker sends it, at its slot.
        UpdateExpression:
          'SET #state = :pending, #mode = :manual, manualRetries = manualRetries + :one, nextAttemptAt = :at, gsi2pk = :duePk, gsi2sk = :dueSk, requeuedBy = :recovery REMOVE destination',
        ConditionExpression: '#state = :dead AND manualRetries < :max',
        ExpressionAttributeNames: { '#state': 'state', '#mode': 'mode' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':manual': 'manual',
          ':one': 1,
          ':at': at,
          ':duePk': due.gsi2pk,
          ':dueSk': due.gsi2sk,
          ':recovery': record.id,
          ':dead': 'dead',
          ':max': webhookSettings.maxManualRetries,
        },
      },
    },
    onConditionFailed: () => new DeliveryMovedError(),
  };
};

/**
 * One message of a recovery: one page read and committed with the recovery's progress in one
 * transaction conditioned on the step the message names, then its deliveries and the next page
 * sent. A message whose step is already committed (its worker died before sending) sends that
 * page again: the claims make a second message for a delivery harmless. Any other is stale.
 */
export const runRecoveryPage = async (message: RecoveryPageMessage, now = new Date(), tries = 1): Promise<RecoveryPageOutcome> => {
  const { tenantId, recoveryPage } = message;
  if (recoveryPage.lease) return resumeRecovery(message, recoveryPage.lease, now);
  const record = await findRecoveryRecord(tenantId, recoveryPage.endpointId, recoveryPage.recoveryId);
  if (!record) return 'redelivery';
  if (record.step === recoveryPage.step + 1) {
    await sendPage(record);
    return 'resent';
  }
  if (record.step !== recoveryPage.step || record.state !== 'running') return 'redelivery';

  // A destination deleted or disabled meanwhile ends the recovery where it is.
  const endpoint = await findEndpointRecord(tenantId, record.endpointId);
  const found: Found = endpoint?.state === 'active' ? await readPage(record, now) : { matched: 0, requeue: [], cursor: null };
  const done = found.cursor === null;
  const at = (index: number) => nowIso(new Date(now.getTime() + delayOf(index) * 1000));
  const next: RecoveryRecord = {
    ...record,
    step: record.step + 1,
    cursor: found.cursor,
    counts: { matched: record.counts.matched + found.matched, requeued: record.counts.requeued + found.requeue.length },
    pageDeliveryIds: found.requeue.map((d) => d.deliveryId),
    state: done ? 'finished' : 'running',
    finishedAt: done ? nowIso(now) : null,
  };
  try {
    await commit([
      progressWrite(next, record.step, now),
      ...found.requeue.map((d, index) => requeueWrite(record, d.deliveryId, at(index))),
      auditWrite({ tenantId, actorId: SYSTEM_ACTOR_ID, action: RECOVERY_PAGE_AUDIT_ACTION, resourceId: record.id, requestId: newId(), now }),
      // The lease runs from when the next page is due: this page's pause is not a stall.
      ...(done ? releaseLockWrites(record) : [renewLeaseWrite(next, new Date(now.getTime() + pauseAfter(found.requeue.length) * 1000))]),
    ]);
  } catch (error) {
    if (error instanceof RecoveryMovedError) return 'redelivery';
    // A delivery retried by hand in the meantime: read the page again (it is no longer dead).
    // Or another recovery of the company finishing at the same moment (their running count).
    if ((error instanceof DeliveryMovedError || error instanceof TransactionConflictError) && tries < 3) return runRecoveryPage(message, new Date(), tries + 1);
    throw error;
  }
  logger.info('webhook recovery page', { recoveryId: record.id, step: next.step, matched: found.matched, requeued: found.requeue.length, done });
  await sendPage(next);
  return done ? 'finished' : 'applied';
};

/** Ends a recovery where it is: no page read, the lock and the tenant's slot given back. */
const abandon = async (record: RecoveryRecord, now: Date): Promise<RecoveryPageOutcome> => {
  const next: RecoveryRecord = { ...record, step: record.step + 1, pageDeliveryIds: [], state: 'finished', finishedAt: nowIso(now) };
  try {
    await commit([
      progressWrite(next, record.step, now),
      auditWrite({ tenantId: record.tenantId, actorId: SYSTEM_ACTOR_ID, action: RECOVERY_PAGE_AUDIT_ACTION, resourceId: record.id, requestId: newId(), now }),
      ...releaseLockWrites(record),
    ]);
  } catch (error) {
    if (error instanceof RecoveryMovedError) return 'redelivery';
    throw error;
  }
  logger.warn('webhook recovery finished after its pages failed repeatedly', { recoveryId: record.id, step: record.step, counts: record.counts });
  return 'abandoned';
};

/**
 * The sweeper's message for a recovery whose lease (`seen`) ran out. One message takes the lease
 * over (a conditional write: of two sweeps, or a sweep and a late page, one wins; the other's
 * message ends here), then runs the page the recovery stands at, as its lost message would have.
 * Its step condition keeps that page to one commit if the lost message turns up after all.
 */
const resumeRecovery = async (message: RecoveryPageMessage, seen: string, now: Date): Promise<RecoveryPageOutcome> => {
  const { tenantId, recoveryPage } = message;
  const lease = await takeOverLease({ tenantId, endpointId: recoveryPage.endpointId, id: recoveryPage.recoveryId }, seen, now);
  if (!lease) return 'redelivery';
  const record = await findRecoveryRecord(tenantId, recoveryPage.endpointId, recoveryPage.recoveryId);
  if (!record || record.state !== 'running') return 'redelivery';
  logger.warn('webhook recovery resumed after its lease ran out', { recoveryId: record.id, step: record.step, resumes: lease.resumes });
  if (lease.resumes > MAX_RECOVERY_RESUMES) return abandon(record, now);
  return runRecoveryPage({ tenantId, recoveryPage: { endpointId: record.endpointId, recoveryId: record.id, step: record.step } }, now);
};
