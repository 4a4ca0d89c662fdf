import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { StateConflictError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { commit, ReadOutdatedError, type Write } from '../../shared/table/transaction.ts';
import { assignmentLeaseMs, AssignmentInProgressError, rollBackAssignment, toClaim, type AssignmentClaim, type AssignmentHold } from '../orders/assignment-holds.ts';
import { orderItem, type OrderRecord } from '../orders/records.ts';
import { stopItem, type StopRecord } from './records.ts';

/** A transaction holds 100 items: the claim's fence and two items (stop, order) per stop. */
export const STOPS_PER_CHUNK = 49;

export const alreadyAssigned = () => new StateConflictError('This route of the plan is already assigned.', 'route_already_assigned');

/** An order of the route was taken (or changed) by someone else between the read and its chunk. */
class OrderTakenError extends StateConflictError {
  constructor(readonly orderId: string) {
    super(`Orders no longer pending: ${orderId}.`);
  }
}

export interface ClaimRequest {
  tenantId: string;
  planId: string;
  vehicleRouteId: string;
  orderIds: string[];
  fingerprint: string;
  /** This run's fencing token. */
  token: string;
  now: Date;
  /** The route the claim makes: new unless a plan changes an existing route (decisions 17). */
  routeId?: string;
  /** Extra fields a new claim carries (a change in place marks itself). */
  extra?: Record<string, unknown>;
}

/**
 * Makes this run the owner of the plan route's claim: a new claim (new route and stop ids), or
 * the claim of an unfinished assignment, taken over when it is this same request again (its
 * fingerprint) or when its lease ran out. Its route and stop ids are kept, so every chunk the
 * earlier run wrote is written again to the same items.
 */
export const acquireClaim = async (request: ClaimRequest): Promise<AssignmentClaim> => {
  const { tenantId, planId, vehicleRouteId, token, now, fingerprint } = request;
  const key = opsKeys.planRouteClaim(tenantId, planId, vehicleRouteId);
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  const lease = now.getTime() + assignmentLeaseMs();
  if (!Item) {
    const claim: AssignmentClaim = { routeId: request.routeId ?? newId(), state: 'assigning', owner: token, fingerprint, leaseUntil: lease, orderIds: request.orderIds, stopIds: request.orderIds.map(() => newId()) };
    try {
      await table().send(new PutCommand({ TableName: tableName(), Item: { ...key, entity: 'plan-route-claim', tenantId, ...request.extra, ...claim }, ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new ReadOutdatedError();
      throw error;
    }
    return claim;
  }
  const current = toClaim(Item);
  if (current.state === 'assigned') throw alreadyAssigned();
  if (current.state === 'assigning' && current.fingerprint !== fingerprint && current.leaseUntil >= now.getTime()) throw new AssignmentInProgressError('Another assignment of this planned route is in progress; retry in a moment.');
  try {
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #state = :assigning, #owner = :token, fingerprint = :fp, leaseUntil = :lease',
        // Exactly the claim read: a racing takeover makes this run read again.
        ConditionExpression: current.owner ? '#state = :read AND #owner = :readOwner' : '#state = :read AND attribute_not_exists(#owner)',
        ExpressionAttributeNames: { '#state': 'state', '#owner': 'owner' },
        ExpressionAttributeValues: { ':assigning': 'assigning', ':token': token, ':fp': fingerprint, ':lease': lease, ':read': current.state, ...(current.owner ? { ':readOwner': current.owner } : {}) },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new ReadOutdatedError();
    throw error;
  }
  return { ...current, state: 'assigning', owner: token, fingerprint, leaseUntil: lease };
};

/** The claim still belongs to this run; each chunk also pushes its lease on. */
export const fence = (tenantId: string, planId: string, vehicleRouteId: string, token: string, now: () => number): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: opsKeys.planRouteClaim(tenantId, planId, vehicleRouteId),
      UpdateExpression: 'SET leaseUntil = :lease',
      ConditionExpression: '#owner = :token AND #state = :assigning',
      ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
      ExpressionAttributeValues: { ':token': token, ':assigning': 'assigning', ':lease': now() + assignmentLeaseMs() },
    },
  },
  onConditionFailed: () => new AssignmentInProgressError('This assignment was taken over by another request for the same planned route.'),
});

export interface Placement {
  stop: StopRecord;
  /** The order as readers see it before the assignment (its own earlier chunk resolved). */
  order: OrderRecord;
}

/**
 * Writes the stops and moves the orders, 49 stops a transaction. Each chunk is conditional on
 * the claim (this run still owns it) and on each order (pending at the version read, or already
 * moved by this same assignment), so a chunk written twice changes nothing. When an order was
 * taken meanwhile (another route's assignment won it), this run rolls its chunks back and
 * answers 409: two routes never both get an order.
 */
export const writeChunks = async (claim: AssignmentClaim, ids: { tenantId: string; planId: string; vehicleRouteId: string }, placements: Placement[], at: string): Promise<void> => {
  const { tenantId, planId, vehicleRouteId } = ids;
  try {
    for (let i = 0; i < placements.length; i += STOPS_PER_CHUNK) {
      const chunk = placements.slice(i, i + STOPS_PER_CHUNK);
      const writes: Write[] = [fence(tenantId, planId, vehicleRouteId, claim.owner, () => Date.now())];
      for (const { stop, order } of chunk) {
        const hold: AssignmentHold = { routeId: claim.routeId, stopId: stop.id, planId, vehicleRouteId, version: order.version, updatedAt: order.updatedAt };
        const moved: OrderRecord = { ...order, state: 'assigned', routeId: claim.routeId, stopId: stop.id, version: order.version + 1, updatedAt: at };
        writes.push({ item: { Put: { TableName: tableName(), Item: stopItem(tenantId, claim.routeId, stop) } } });
        writes.push({
          item: {
            Put: {
              TableName: tableName(),
              Item: { ...orderItem(tenantId, moved), assigning: hold },
              ConditionExpression: '(#state = :pending AND version = :version) OR assigning.routeId = :route',
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: { ':pending': 'pending', ':version': order.version, ':route': claim.routeId },
            },
          },
          onConditionFailed: () => new OrderTakenError(order.id),
        });
      }
      await commit(writes);
    }
  } catch (error) {
    if (!(error instanceof OrderTakenError)) throw error;
    await rollBackAssignment(tenantId, planId, vehicleRouteId, claim.owner);
    throw error;
  }
};

/** The final write's claim: assigned, with no lease or owner left to take over. */
export const claimAssignedWrite = (tenantId: string, planId: string, vehicleRouteId: string, token: string): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: opsKeys.planRouteClaim(tenantId, planId, vehicleRouteId),
      UpdateExpression: 'SET #state = :assigned REMOVE leaseUntil, fingerprint',
      ConditionExpression: '#owner = :token AND #state = :assigning',
      ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
      ExpressionAttributeValues: { ':token': token, ':assigning': 'assigning', ':assigned': 'assigned' },
    },
  },
  onConditionFailed: (old) => ((old?.state as string | undefined) === 'assigned' ? alreadyAssigned() : new AssignmentInProgressError('This assignment was taken over by another request for the same planned route.')),
});
