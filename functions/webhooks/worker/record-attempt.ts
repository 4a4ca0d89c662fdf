import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../../shared/clock.ts';
import { logger } from '../../../shared/logger.ts';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { StateConflictError } from '../../../shared/errors.ts';
import type { DeliveryRecord } from '../delivery-record.ts';
import type { DestinationSnapshot } from '../endpoint-record.ts';
import type { AttemptLogEntry, DeliveryState } from '../schemas.ts';
import { ATTEMPT_LOG_FIRST, ATTEMPT_LOG_MAX, DISABLE_AFTER_DEAD_DELIVERIES, webhookSettings } from '../settings.ts';
import type { AttemptResult } from '../transport/send-attempt.ts';
import { nextDelaySeconds } from './schedule.ts';
import { failingEvent, WARN_AFTER_DEAD_DELIVERIES } from '../operational-events.ts';

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
  if (result.outcome === 'destination_disabled' || result.outcome === 'destination_deleted' || record.mode === 'manual') return { state: 'dead', attemptNo, delaySeconds: null, countsAsFailure: false };
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

export type CountChange = 'add' | 'reset';

export interface RecordOptions {
  /** How the destination's failure count moves with this record, if at all. */
  countChange?: CountChange | null;
  /** A destination copy this attempt read, kept on the delivery for its next attempts. */
  snapshot?: DestinationSnapshot;
  /** The destination's URL, for the operational event about it. */
  url?: string;
}

/** The delivery's write: the attempt, its log and the new state, if this worker still holds the lease. */
const deliveryUpdate = (record: DeliveryRecord, leaseToken: string, result: AttemptResult, settlement: Settlement, now: Date, snapshot?: DestinationSnapshot) => {
  const at = nowIso(now);
  const nextAttemptAt = settlement.delaySeconds === null ? null : nowIso(new Date(now.getTime() + settlement.delaySeconds * 1000));
  const entry: AttemptLogEntry = {
    attemptNo: settlement.attemptNo,
    trigger: record.mode,
    startedAt: result.startedAt,
    durationMs: result.durationMs,
    outcome: result.outcome,
    statusCode: result.statusCode,
    retryAfterSeconds: result.retryAfterSeconds,
    responseExcerpt: result.responseExcerpt,
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
  if (snapshot) {
    values[':destination'] = snapshot;
    update += ', destination = :destination';
  }
  if (nextAttemptAt) {
    const due = keys.deliveryDue(record.id, nextAttemptAt);
    Object.assign(values, { ':duePk': due.gsi2pk, ':dueSk': due.gsi2sk });
    update += ', gsi2pk = :duePk, gsi2sk = :dueSk REMOVE leaseToken, leaseUntil';
  } else {
    update += ' REMOVE leaseToken, leaseUntil, gsi2pk, gsi2sk';
  }
  return {
    nextAttemptAt,
    update: {
      TableName: tableName(),
      Key: keys.delivery(record.tenantId, record.id),
      UpdateExpression: update,
      ConditionExpression: 'leaseToken = :token',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
};

/** How the count moves: the two `reaching` kinds are the deaths that warn (15) and that disable (20). */
type CountMove = CountChange | 'add-reaching-warning' | 'add-reaching-limit';

/**
 * The destination's failure count moves; it sets no version, as a count is not a change made by
 * the company. An `add` that would reach the warning or the disabling count fails its condition
 * first, so the worker learns, in the same call, that this death is the one that warns (written
 * again with the `webhook.endpoint.failing` event in its transaction, so it is sent once) or the
 * one that disables (only that one makes the disabling transaction).
 */
const countUpdate = (record: DeliveryRecord, change: CountMove) => {
  const base = { TableName: tableName(), Key: keys.webhookEndpoint(record.tenantId, record.endpointId), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  if (change === 'reset') return { ...base, UpdateExpression: 'SET consecutiveFailures = :zero', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':zero': 0 } };
  const add = { ...base, UpdateExpression: 'ADD consecutiveFailures :one' };
  if (change === 'add-reaching-limit') return { ...add, ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':one': 1 } };
  if (change === 'add-reaching-warning') return { ...add, ConditionExpression: 'consecutiveFailures = :warnBefore', ExpressionAttributeValues: { ':one': 1, ':warnBefore': WARN_AFTER_DEAD_DELIVERIES - 1 } };
  return {
    ...add,
    ConditionExpression: 'attribute_exists(pk) AND (consecutiveFailures < :warnBefore OR (consecutiveFailures > :warnBefore AND consecutiveFailures < :last))',
    ExpressionAttributeValues: { ':one': 1, ':warnBefore': WARN_AFTER_DEAD_DELIVERIES - 1, ':last': DISABLE_AFTER_DEAD_DELIVERIES - 1 },
  };
};

/** After the count's condition failed: what this death means given the count as it was (none: the destination is gone). */
const nextMove = (change: CountMove, old: Record<string, unknown> | undefined): CountMove | null => {
  if (!old || change === 'reset' || change === 'add-reaching-limit') return null;
  const count = old.consecutiveFailures as number;
  if (count === WARN_AFTER_DEAD_DELIVERIES - 1) return 'add-reaching-warning';
  return count >= DISABLE_AFTER_DEAD_DELIVERIES - 1 ? 'add-reaching-limit' : 'add';
};

/** Which write's condition failed (0 the delivery, 1 the destination) and the item as it was. */
const failedCondition = (error: unknown): { index: number; old?: Record<string, unknown> } | undefined => {
  if (error instanceof ConditionalCheckFailedException) return { index: 0, old: error.Item ? unmarshall(error.Item) : undefined };
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const index = (error.CancellationReasons ?? []).findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
  if (index < 0) return undefined;
  const item = error.CancellationReasons![index].Item;
  return { index, old: item ? unmarshall(item) : undefined };
};

/**
 * Records the attempt and the delivery's new state, on condition that this worker still holds
 * the lease, in one write: the delivery alone, or, when the destination's failure count moves,
 * the delivery and the count in one transaction, so a crash can neither count an attempt
 * without recording it nor record it without counting it. A transaction that meets a
 * concurrent one on the destination (a PATCH) is cancelled whole and tried again, as is any
 * write that fails for a passing reason: the POST is made, and a record left undone would let
 * the sweeper make it again once the lease runs out.
 */
export const recordAttempt = async (
  record: DeliveryRecord,
  leaseToken: string,
  result: AttemptResult,
  settlement: Settlement,
  now: Date,
  options: RecordOptions = {},
): Promise<{ nextAttemptAt: string | null; reachedDisableLimit: boolean; failuresAfter: number | null }> => {
  const { update, nextAttemptAt } = deliveryUpdate(record, leaseToken, result, settlement, now, options.snapshot);
  let change: CountMove | null = options.countChange ?? null;
  let failuresAfter: number | null = null;
  const done = () => ({ nextAttemptAt, reachedDisableLimit: change === 'add-reaching-limit', failuresAfter });
  const giveUpAt = Date.now() + (webhookSettings.leaseSeconds * 1000) / 2;
  for (let tries = 1; ; tries++) {
    try {
      if (change) {
        const items: NonNullable<TransactWriteCommandInput['TransactItems']> = [{ Update: update }, { Update: countUpdate(record, change) }];
        if (change === 'add-reaching-warning') {
          const about = { tenantId: record.tenantId, endpointId: record.endpointId, url: options.url ?? '', consecutiveFailures: WARN_AFTER_DEAD_DELIVERIES };
          items.push(failingEvent(about, now).write.item);
        }
        await table().send(new TransactWriteCommand({ TransactItems: items }));
      } else {
        await table().send(new UpdateCommand(update));
      }
      return done();
    } catch (error) {
      const failed = failedCondition(error);
      if (failed?.index === 1) {
        change = nextMove(change!, failed.old);
        failuresAfter = failed.old ? (failed.old.consecutiveFailures as number) + 1 : null;
        continue;
      }
      if (failed) {
        // An earlier try that timed out may have been written after all: then it is recorded.
        if (tries > 1 && failed.old?.attempts === settlement.attemptNo && failed.old?.lastAttemptAt === result.startedAt) return done();
        throw new StateConflictError('The attempt lease was lost to another worker.', 'lease_lost');
      }
      const wait = Math.min(2_000, 100 * 2 ** tries) * (0.5 + Math.random() / 2);
      if (Date.now() + wait > giveUpAt) throw error;
      logger.warn('webhook attempt not recorded yet; trying again', { deliveryId: record.id, tries, error: error as Error });
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
};

/** How the destination's failure count moves after a settled attempt, if at all. */
export const failureCountChange = (record: DeliveryRecord, settlement: Settlement, failuresBefore: number): CountChange | null => {
  if (settlement.countsAsFailure) return 'add';
  // A success writes the destination only when it has failures to forget: otherwise every
  // success would write one hot item. A test notification never moves the count.
  if (settlement.state === 'succeeded' && failuresBefore > 0 && record.eventType !== 'webhook.test') return 'reset';
  return null;
};
