import { NotFoundError, StateConflictError, VersionMismatchError } from '../../shared/errors.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { routeItem } from './records.ts';
import type { RouteRecord } from './schemas.ts';

/** The route's next state, written only over the version that was read. */
export const routeWrite = (tenantId: string, next: RouteRecord, expectedVersion: number, clientVersion?: number): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: routeItem(tenantId, next),
      ConditionExpression: 'attribute_exists(pk) AND version = :version',
      ExpressionAttributeValues: { ':version': expectedVersion },
    },
  },
  onConditionFailed: (old) => {
    if (!old) return new NotFoundError('No route with this id.');
    // A client that named a version gets the version conflict; others raced a concurrent change.
    if (clientVersion !== undefined) return new VersionMismatchError(old.version as number, clientVersion);
    return new StateConflictError('The route changed meanwhile; reload it and try again.', 'concurrent_update');
  },
});

/** The route's state checked inside a transaction: the read before it may already be stale. */
export const routeStateCheck = (tenantId: string, routeId: string, state: RouteRecord['state'], failed: (old: Record<string, unknown> | undefined) => Error): Write => ({
  item: {
    ConditionCheck: {
      TableName: tableName(),
      Key: opsKeys.route(tenantId, routeId),
      ConditionExpression: '#state = :state',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':state': state },
    },
  },
  onConditionFailed: failed,
});

/** Field actions on stops need the route to be under way. */
export const routeStartedCheck = (tenantId: string, routeId: string): Write =>
  routeStateCheck(tenantId, routeId, 'started', () => new StateConflictError('The route is not under way.'));

export const requireRouteState = (route: RouteRecord, allowed: RouteRecord['state'][], action: string): void => {
  if (!allowed.includes(route.state)) throw new StateConflictError(`A route that is ${route.state} cannot ${action}.`);
};
