import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { StateConflictError } from '../../shared/errors.ts';
import { runInLanes } from '../../shared/lanes.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { cancelGuideIfUnsent } from '../invoicing/guides/cancel-guides.ts';
import { clearHolds } from '../orders/assignment-holds.ts';
import { releaseOrUnmark } from '../orders/route-release.ts';
import type { RouteChange, Staging } from './route-change-shapes.ts';

/** A write that finds the item moved on (settled by a reader's writer, or changed since) is left alone. */
const quietly = async (send: () => Promise<unknown>): Promise<void> => {
  try {
    await send();
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException) && !(error instanceof StateConflictError)) throw error;
  }
};

/**
 * After a change in place committed (route-change.ts): its staged values folded into the stop
 * items, removed stops deleted (a cancelled route's turned `removed`), the added orders' holds and
 * the removed orders' marks replaced by what readers already see, and the unsent guides of
 * removed stops cancelled (decisions 16, as a route cancel does). Best effort: every reader
 * resolves whatever is left (records.ts resolveStopItems, assignment-holds.ts, route-release.ts).
 */
export const settleChange = async (change: RouteChange, staging: Staging, at: string): Promise<void> => {
  const { tenantId, routeId, planId } = change;
  const cancelling = change.orderIds.length === 0;
  const stopKey = (stopId: string) => opsKeys.stop(tenantId, routeId, stopId);
  const work: (() => Promise<void>)[] = [
    ...staging.removed
      .filter((stop) => stop.dispatchGuide?.localState === 'approved')
      .map((stop) => async () => {
        await cancelGuideIfUnsent(tenantId, stop.dispatchGuide!.intentId, new Date(at));
      }),
    ...staging.kept.map(({ stop, sequence }) => () => {
      const planned = change.plannedArrivals[stop.orderId];
      return quietly(() =>
        table().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: stopKey(stop.id),
            UpdateExpression: planned ? 'SET #sequence = :sequence, plannedArrivalAt = :planned REMOVE #next' : 'SET #sequence = :sequence REMOVE #next, plannedArrivalAt',
            ConditionExpression: '#next.planId = :plan',
            ExpressionAttributeNames: { '#sequence': 'sequence', '#next': 'next' },
            ExpressionAttributeValues: { ':sequence': sequence, ':plan': planId, ...(planned ? { ':planned': planned } : {}) },
          }),
        ),
      );
    }),
    ...staging.removed.map((stop) => () =>
      quietly(() =>
        cancelling
          ? table().send(
              new UpdateCommand({
                TableName: tableName(),
                Key: stopKey(stop.id),
                UpdateExpression: 'SET #state = :removed, version = version + :one',
                ConditionExpression: '#state = :pending',
                ExpressionAttributeNames: { '#state': 'state' },
                ExpressionAttributeValues: { ':removed': 'removed', ':pending': 'pending', ':one': 1 },
              }),
            )
          : table().send(new DeleteCommand({ TableName: tableName(), Key: stopKey(stop.id), ConditionExpression: '#next.planId = :plan', ExpressionAttributeNames: { '#next': 'next' }, ExpressionAttributeValues: { ':plan': planId } })),
      ),
    ),
    ...staging.added.map(({ stop }) => () =>
      quietly(() =>
        table().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: stopKey(stop.id),
            UpdateExpression: 'REMOVE stagedFor',
            ConditionExpression: 'stagedFor.planId = :plan',
            ExpressionAttributeValues: { ':plan': planId },
          }),
        ),
      ),
    ),
    ...staging.leaving.map((order) => () => releaseOrUnmark(tenantId, order, routeId, at)),
  ];
  try {
    await runInLanes(work);
  } finally {
    await clearHolds(tenantId, routeId, staging.added.map((a) => a.order.id));
  }
};
