import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_SECONDS, epochSeconds, nowIso } from '../../shared/clock.ts';
import { StateConflictError } from '../../shared/errors.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { RECOVERY_ENTITY } from './entities.ts';
import { DELIVERY_RETENTION_DAYS } from './settings.ts';
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

/** The new recovery and its destination's lock: a second recovery meets the lock's condition (409 recovery_running). */
export const newRecoveryWrites = (record: RecoveryRecord, now: Date): Write[] => [
  {
    item: {
      Put: {
        TableName: tableName(),
        Item: { ...keys.webhookRecoveryLock(record.tenantId, record.endpointId), entity: 'webhookRecoveryLock', tenantId: record.tenantId, recoveryId: record.id },
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

/** The last page releases the destination's lock (only its own). */
export const releaseLockWrite = (record: RecoveryRecord): Write => ({
  item: {
    Delete: {
      TableName: tableName(),
      Key: keys.webhookRecoveryLock(record.tenantId, record.endpointId),
      ConditionExpression: 'attribute_not_exists(pk) OR recoveryId = :id',
      ExpressionAttributeValues: { ':id': record.id },
    },
  },
});
