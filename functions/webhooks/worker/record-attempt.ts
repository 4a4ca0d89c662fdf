import { ConditionalCheckFailedException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../../shared/clock.ts';
import { logger } from '../../../shared/logger.ts';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { StateConflictError } from '../../../shared/errors.ts';
import type { DeliveryRecord } from '../delivery-record.ts';
import type { AttemptLogEntry, DeliveryState } from '../schemas.ts';
import { ATTEMPT_LOG_FIRST, ATTEMPT_LOG_MAX, webhookSettings } from '../settings.ts';
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
 * makes one attempt: success or dead. A disabled destination ends it at once. A test
 * notification never counts toward disabling (docs/webhooks.md).
 */
export const settle = (record: DeliveryRecord, result: AttemptResult): Settlement => {
  const attemptNo = record.attempts + 1;
  if (result.outcome === 'success') return { state: 'succeeded', attemptNo, delaySeconds: null, countsAsFailure: false };
  if (result.outcome === 'destination_disabled' || record.mode === 'manual') return { state: 'dead', attemptNo, delaySeconds: null, countsAsFailure: false };
  if (attemptNo >= record.maxAttempts) return { state: 'dead', attemptNo, delaySeconds: null, countsAsFailure: record.eventType !== 'webhook.test' };
  return { state: 'pending', attemptNo, delaySeconds: nextDelaySeconds(attemptNo, result.retryAfterSeconds), countsAsFailure: false };
};

/** The log with one more entry, keeping the first entries and the latest ones, and how many it left out. */
export const appendToLog = (log: AttemptLogEntry[], omitted: number, entry: AttemptLogEntry): { log: AttemptLogEntry[]; omitted: number } => {
  const next = [...log, entry];
  if (next.length <= ATTEMPT_LOG_MAX) return { log: next, omitted };
  const dropped = next.length - ATTEMPT_LOG_MAX;
  return { log: [...next.slice(0, ATTEMPT_LOG_FIRST), ...next.slice(ATTEMPT_LOG_FIRST + dropped)], omitted: omitted + dropped };
};

/**
 * Records the attempt and the delivery's new state, on condition that this worker still holds
 * the lease. The delivery alone: a write that also touched the destination could fail on a
 * concurrent change of the destination, and then a POST that was made would be neither logged
 * nor settled, and would be made again.
 */
export const recordAttempt = async (record: DeliveryRecord, leaseToken: string, result: AttemptResult, settlement: Settlement, now: Date): Promise<{ nextAttemptAt: string | null }> => {
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
  // The lease makes this worker the log's only writer, so the claimed copy is the current one.
  const { log, omitted } = appendToLog(record.attemptLog, record.attemptLogOmitted, entry);
  const values: Record<string, unknown> = {
    ':state': settlement.state,
    ':attempts': settlement.attemptNo,
    ':started': result.startedAt,
    ':status': result.statusCode,
    ':outcome': result.outcome,
    ':next': nextAttemptAt,
    ':log': log,
    ':omitted': omitted,
    ':token': leaseToken,
    ':succeeded': settlement.state === 'succeeded' ? at : null,
    ':dead': settlement.state === 'dead' ? at : null,
  };
  let update =
    'SET #state = :state, attempts = :attempts, lastAttemptAt = :started, lastStatus = :status, lastOutcome = :outcome, nextAttemptAt = :next, succeededAt = :succeeded, deadAt = :dead, attemptLog = :log, attemptLogOmitted = :omitted';
  if (nextAttemptAt) {
    const due = keys.deliveryDue(record.id, nextAttemptAt);
    Object.assign(values, { ':duePk': due.gsi2pk, ':dueSk': due.gsi2sk });
    update += ', gsi2pk = :duePk, gsi2sk = :dueSk REMOVE leaseToken, leaseUntil';
  } else {
    update += ' REMOVE leaseToken, leaseUntil, gsi2pk, gsi2sk';
  }
  const command = new UpdateCommand({
    TableName: tableName(),
    Key: keys.delivery(record.tenantId, record.id),
    UpdateExpression: update,
    ConditionExpression: 'leaseToken = :token',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: values,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
  // The POST is made: a record that fails for a passing reason (timeout, throttling) is tried
  // again while the lease still has time, or the sweeper would make the attempt a second time.
  const giveUpAt = Date.now() + (webhookSettings.leaseSeconds * 1000) / 2;
  for (let tries = 1; ; tries++) {
    try {
      await table().send(command);
      return { nextAttemptAt };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        // An earlier try that timed out may have been written after all: then it is recorded.
        const old = error.Item ? unmarshall(error.Item) : undefined;
        if (tries > 1 && old?.attempts === settlement.attemptNo && old?.lastAttemptAt === result.startedAt) return { nextAttemptAt };
        throw new StateConflictError('The attempt lease was lost to another worker.', 'lease_lost');
      }
      const wait = Math.min(2_000, 100 * 2 ** tries);
      if (Date.now() + wait > giveUpAt) throw error;
      logger.warn('webhook attempt not recorded yet; trying again', { deliveryId: record.id, tries, error: error as Error });
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
};

/** How the destination's failure count moves after a settled attempt, if at all. */
export const failureCountChange = (record: DeliveryRecord, settlement: Settlement, failuresBefore: number): 'add' | 'reset' | null => {
  if (settlement.countsAsFailure) return 'add';
  // A success writes the destination only when it has failures to forget: otherwise every
  // success would write one hot item. A test notification never moves the count.
  if (settlement.state === 'succeeded' && failuresBefore > 0 && record.eventType !== 'webhook.test') return 'reset';
  return null;
};

const COUNT_TRIES = 5;

/**
 * Moves the destination's failure count, after the attempt is recorded. It is its own write,
 * retried when it meets a concurrent transaction on the destination (a PATCH with its
 * idempotency record); it sets no version, as a count is not a change made by the company.
 */
export const moveFailureCount = async (record: DeliveryRecord, change: 'add' | 'reset'): Promise<void> => {
  const command = new UpdateCommand({
    TableName: tableName(),
    Key: keys.webhookEndpoint(record.tenantId, record.endpointId),
    UpdateExpression: change === 'add' ? 'ADD consecutiveFailures :one' : 'SET consecutiveFailures = :zero',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: change === 'add' ? { ':one': 1 } : { ':zero': 0 },
  });
  for (let attempt = 1; ; attempt++) {
    try {
      await table().send(command);
      return;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return; // the destination is gone
      if (!(error instanceof TransactionConflictException) || attempt >= COUNT_TRIES) {
        logger.error('webhook failure count not updated', { deliveryId: record.id, endpointId: record.endpointId, change, error: error as Error });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt * Math.random()));
    }
  }
};
