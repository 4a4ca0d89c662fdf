import { nowIso } from '../../../shared/clock.ts';
import { StateConflictError } from '../../../shared/errors.ts';
import { keys } from '../../../shared/table/keys.ts';
import { tableName } from '../../../shared/table/client.ts';
import { commit, type Write } from '../../../shared/table/transaction.ts';
import type { DeliveryRecord } from '../delivery-record.ts';
import type { AttemptLogEntry, DeliveryState } from '../schemas.ts';
import type { AttemptResult } from '../transport/send-attempt.ts';
import { nextDelaySeconds } from './schedule.ts';

export interface Settlement {
  state: DeliveryState;
  attemptNo: number;
  /** Set when another attempt follows. */
  delaySeconds: number | null;
  /** The delivery died after its automatic attempts: it counts toward disabling the destination. */
  countsAsFailure: boolean;
}

/**
 * What an attempt means for the delivery. Automatic mode: success ends it, a failure waits for
 * the next attempt of the schedule, the eighth failure is dead. Manual mode (a retry by hand)
 * makes one attempt: success or dead. A disabled destination ends it at once.
 */
export const settle = (record: DeliveryRecord, result: AttemptResult): Settlement => {
  const attemptNo = record.attempts + 1;
  if (result.outcome === 'success') return { state: 'succeeded', attemptNo, delaySeconds: null, countsAsFailure: false };
  if (result.outcome === 'destination_disabled' || record.mode === 'manual') return { state: 'dead', attemptNo, delaySeconds: null, countsAsFailure: false };
  if (attemptNo >= record.maxAttempts) return { state: 'dead', attemptNo, delaySeconds: null, countsAsFailure: true };
  return { state: 'pending', attemptNo, delaySeconds: nextDelaySeconds(attemptNo, result.retryAfterSeconds), countsAsFailure: false };
};

/**
 * Records the attempt, the delivery's new state and the destination's failure count in one
 * transaction, on condition that this worker still holds the lease.
 */
export const recordAttempt = async (
  record: DeliveryRecord,
  leaseToken: string,
  result: AttemptResult,
  settlement: Settlement,
  now: Date,
  failuresBefore: number,
): Promise<{ nextAttemptAt: string | null }> => {
  const at = nowIso(now);
  const nextAttemptAt = settlement.delaySeconds === null ? null : nowIso(new Date(now.getTime() + settlement.delaySeconds * 1000));
  const entry: AttemptLogEntry = {
    attemptNo: settlement.attemptNo,
    trigger: record.mode,
    startedAt: result.startedAt,
    durationMs: result.durationMs,
    outcome: result.outcome,
    statusCode: result.statusCode,
  };
  const values: Record<string, unknown> = {
    ':state': settlement.state,
    ':attempts': settlement.attemptNo,
    ':started': result.startedAt,
    ':status': result.statusCode,
    ':outcome': result.outcome,
    ':next': nextAttemptAt,
    ':entry': [entry],
    ':token': leaseToken,
    ':succeeded': settlement.state === 'succeeded' ? at : null,
    ':dead': settlement.state === 'dead' ? at : null,
  };
  let update =
    'SET #state = :state, attempts = :attempts, lastAttemptAt = :started, lastStatus = :status, lastOutcome = :outcome, nextAttemptAt = :next, succeededAt = :succeeded, deadAt = :dead, attemptLog = list_append(attemptLog, :entry)';
  if (nextAttemptAt) {
    const due = keys.deliveryDue(record.id, nextAttemptAt);
    Object.assign(values, { ':duePk': due.gsi2pk, ':dueSk': due.gsi2sk });
    update += ', gsi2pk = :duePk, gsi2sk = :dueSk REMOVE leaseToken, leaseUntil';
  } else {
    update += ' REMOVE leaseToken, leaseUntil, gsi2pk, gsi2sk';
  }
  const writes: Write[] = [
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.delivery(record.tenantId, record.id),
          UpdateExpression: update,
          ConditionExpression: 'leaseToken = :token',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: values,
        },
      },
      onConditionFailed: () => new StateConflictError('The attempt lease was lost to another worker.', 'lease_lost'),
    },
  ];
  // A success writes the destination only when it has failures to forget: otherwise every
  // success would write one hot item, and concurrent attempts would conflict on it.
  if ((settlement.state === 'succeeded' && failuresBefore > 0) || settlement.countsAsFailure) {
    writes.push({
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.webhookEndpoint(record.tenantId, record.endpointId),
          UpdateExpression: settlement.countsAsFailure ? 'ADD consecutiveFailures :one' : 'SET consecutiveFailures = :zero',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: settlement.countsAsFailure ? { ':one': 1 } : { ':zero': 0 },
        },
      },
    });
  }
  await commit(writes);
  return { nextAttemptAt };
};
