import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { epochSeconds, nowIso } from '../../../shared/clock.ts';
import type { DeliveryMessage } from '../../../shared/ports/queue.ts';
import { keys } from '../../../shared/table/keys.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { findDeliveryRecord, toDeliveryRecord, type DeliveryRecord } from '../delivery-record.ts';
import { webhookSettings } from '../settings.ts';

/** SQS and Scheduler may hand a message over a little early; that much is taken as due. */
const EARLY_TOLERANCE_MS = 1_000;

export type Claim = { claimed: true; record: DeliveryRecord; leaseToken: string } | { claimed: false; record?: DeliveryRecord };

/**
 * Takes the delivery for one attempt with a conditional write: it must be pending and due, or
 * delivering with a lease that ran out (a worker that died mid-attempt). Two workers with the
 * same message: one wins, the other is told no and drops the message.
 */
export const claimDelivery = async (message: DeliveryMessage, now: Date): Promise<Claim> => {
  const leaseToken = randomUUID();
  const dueBy = nowIso(new Date(now.getTime() + EARLY_TOLERANCE_MS));
  const leaseUntil = nowIso(new Date(now.getTime() + webhookSettings.leaseSeconds * 1000));
  const due = keys.deliveryDue(message.deliveryId, leaseUntil);
  try {
    const { Attributes } = await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.delivery(message.tenantId, message.deliveryId),
        UpdateExpression: 'SET #state = :delivering, leaseToken = :token, leaseUntil = :leaseUntil, gsi2pk = :duePk, gsi2sk = :dueSk',
        ConditionExpression:
          'attribute_exists(pk) AND expiresAt > :epoch AND ((#state = :pending AND nextAttemptAt <= :dueBy) OR (#state = :delivering AND leaseUntil < :now))',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':delivering': 'delivering',
          ':pending': 'pending',
          ':token': leaseToken,
          ':leaseUntil': leaseUntil,
          ':duePk': due.gsi2pk,
          ':dueSk': due.gsi2sk,
          ':epoch': epochSeconds(now),
          ':dueBy': dueBy,
          ':now': nowIso(now),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { claimed: true, record: toDeliveryRecord(Attributes!), leaseToken };
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    return { claimed: false, record: await findDeliveryRecord(message.tenantId, message.deliveryId) };
  }
};
