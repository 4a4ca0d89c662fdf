import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_SECONDS, epochSeconds, nowIso } from '../../shared/clock.ts';
import { StateConflictError } from '../../shared/errors.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { RECOVERY_ENTITY, RECOVERY_LOCK_ENTITY } from './entities.ts';
import { DELIVERY_RETENTION_DAYS, webhookSettings } from './settings.ts';
import type { Recovery } from './schemas.ts';

/** A recovery as stored: the API view, where its next page starts, and the page last requeued. */
export interface RecoveryRecord extends Recovery {
  tenantId: string;
  /** Pages committed; a page message names the step it runs. */
  step: number;
  /** The last delivery id a page looked at (pages go oldest first), null before the first. */
  cursor: string | null;
  /** The deliveries the last committed page requeued, in order: sent again if that page's worker died before sending. */
  pageDeliveryIds: string[];
}

export class RecoveryMovedError extends StateConflictError {
  constructor() {
    super('Another delivery of this page committed it first.', 'recovery_moved');
  }
}


export const toRecoveryRecord = (item: Record<string, unknown>): RecoveryRecord => ({
  id: item.recoveryId as string,
  tenantId: item.tenantId as string,
  endpointId: item.endpointId as string,
  since: item.since as string,
  until: item.until as string,
  state: item.state as Recovery['state'],
  counts: item.counts as Recovery['counts'],
  createdAt: item.createdAt as string,
  finishedAt: (item.finishedAt as string | null) ?? null,
  step: item.step as number,
  cursor: (item.cursor as string | null) ?? null,
  pageDeliveryIds: (item.pageDeliveryIds as string[]) ?? [],
});

export const toRecovery = (record: RecoveryRecord): Recovery => ({
  id: record.id,
  endpointId: record.endpointId,
  since: record.since,
  until: record.until,
  state: record.state,
  counts: record.counts,
  createdAt: record.createdAt,
  finishedAt: record.finishedAt,
});

export const findRecoveryRecord = async (tenantId: string, endpointId: string, recoveryId: string): Promise<RecoveryRecord | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.webhookRecovery(tenantId, endpointId, recoveryId), ConsistentRead: true }));
  return Item ? toRecoveryRecord(Item) : undefined;
};

/** Kept as long as the deliveries it requeued. */
const expiresAt = (now: Date) => epochSeconds(now) + DELIVERY_RETENTION_DAYS * DAY_SECONDS;

const leaseUntil = (now: Date): string => nowIso(new Date(now.getTime() + webhookSettings.recoveryLeaseSeconds * 1000));

/**
 * The lock's lease puts it on the due index (gsi2, sharded by the recovery's id, due when the
 * lease runs out) beside the deliveries, so the sweeper that resends overdue deliveries also
 * finds a recovery whose page message was lost or dead-lettered.
 */
const leaseAttributes = (recoveryId: string, until: string) => ({ leaseUntil: until, ...keys.deliveryDue(recoveryId, until) });

const runningCount = (tenantId: string, change: 1 | -1): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: keys.webhookRecoveriesRunning(tenantId),
      UpdateExpression: 'ADD running :change',
      ...(change === 1
        ? { ConditionExpression: 'attribute_not_exists(running) OR running < :max', ExpressionAttributeValues: { ':change': 1, ':max': webhookSettings.maxRunningRecoveries } }
        : { ExpressionAttributeValues: { ':change': -1 } }),
    },
  },
  onConditionFailed: () =>
    new StateConflictError(`The company already runs ${webhookSettings.maxRunningRecoveries} recoveries; wait for one to finish.`, 'recoveries_limit'),
});

/**
 * The new recovery, its destination's lock (a second recovery of the destination meets its
 * condition: 409 recovery_running) and one more on the tenant's count of running recoveries
 * (409 recoveries_limit at the cap: they all share the attempts queue).
 */
export const newRecoveryWrites = (record: RecoveryRecord, now: Date): Write[] => [
  {
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.webhookRecoveryLock(record.tenantId, record.endpointId),
          entity: RECOVERY_LOCK_ENTITY,
          tenantId: record.tenantId,
          endpointId: record.endpointId,
          recoveryId: record.id,
          step: 0,
          resumes: 0,
          ...leaseAttributes(record.id, leaseUntil(now)),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    onConditionFailed: () => new StateConflictError('A recovery of this destination is running; wait for it to finish.', 'recovery_running'),
  },
  {
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...keys.webhookRecovery(record.tenantId, record.endpointId, record.id), entity: RECOVERY_ENTITY, recoveryId: record.id, ...withoutId(record), expiresAt: expiresAt(now) },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  },
  runningCount(record.tenantId, 1),
];

const withoutId = ({ id: _id, ...rest }: RecoveryRecord) => rest;

/** A page's progress, conditioned on the step its message names: a page committed twice fails here. */
export const progressWrite = (next: RecoveryRecord, expectedStep: number, now: Date): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: { ...keys.webhookRecovery(next.tenantId, next.endpointId, next.id), entity: RECOVERY_ENTITY, recoveryId: next.id, ...withoutId(next), expiresAt: expiresAt(now), updatedAt: nowIso(now) },
      ConditionExpression: 'step = :step',
      ExpressionAttributeValues: { ':step': expectedStep },
    },
  },
  onConditionFailed: () => new RecoveryMovedError(),
});

/** A page that is not the last renews the lease and records its step on the lock (only its own lock). */
export const renewLeaseWrite = (next: RecoveryRecord, from: Date): Write => {
  const lease = leaseAttributes(next.id, leaseUntil(from));
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.webhookRecoveryLock(next.tenantId, next.endpointId),
        UpdateExpression: 'SET step = :step, resumes = :zero, leaseUntil = :lease, gsi2pk = :duePk, gsi2sk = :dueSk',
        ConditionExpression: 'recoveryId = :id',
        ExpressionAttributeValues: { ':step': next.step, ':zero': 0, ':lease': lease.leaseUntil, ':duePk': lease.gsi2pk, ':dueSk': lease.gsi2sk, ':id': next.id },
      },
    },
    onConditionFailed: () => new RecoveryMovedError(),
  };
};

/** The last page (or the end of a recovery abandoned after its resumes) releases the lock, only its own, and one off the tenant's count. */
export const releaseLockWrites = (record: RecoveryRecord): Write[] => [
  {
    item: {
      Delete: {
        TableName: tableName(),
        Key: keys.webhookRecoveryLock(record.tenantId, record.endpointId),
        ConditionExpression: 'recoveryId = :id',
        ExpressionAttributeValues: { ':id': record.id },
      },
    },
    onConditionFailed: () => new RecoveryMovedError(),
  },
  runningCount(record.tenantId, -1),
];

/** A lock taken over once its lease (`seen`) ran out: a new lease, one more resume. Null if another took it, or a page renewed it, first. */
export const takeOverLease = async (record: Pick<RecoveryRecord, 'tenantId' | 'endpointId' | 'id'>, seen: string, now: Date): Promise<{ step: number; resumes: number } | null> => {
  const lease = leaseAttributes(record.id, leaseUntil(now));
  try {
    const { Attributes } = await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.webhookRecoveryLock(record.tenantId, record.endpointId),
        UpdateExpression: 'SET leaseUntil = :lease, gsi2pk = :duePk, gsi2sk = :dueSk ADD resumes :one',
        ConditionExpression: 'recoveryId = :id AND leaseUntil = :seen',
        ExpressionAttributeValues: { ':lease': lease.leaseUntil, ':duePk': lease.gsi2pk, ':dueSk': lease.gsi2sk, ':one': 1, ':id': record.id, ':seen': seen },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { step: Attributes!.step as number, resumes: Attributes!.resumes as number };
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return null;
    throw error;
  }
};
