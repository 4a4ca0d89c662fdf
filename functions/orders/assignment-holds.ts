import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { StateConflictError } from '../../shared/errors.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { commit, ReadOutdatedError, type Write } from '../../shared/table/transaction.ts';
import { runInLanes } from '../../shared/lanes.ts';
import { orderItem, toOrderRecord, type AssignmentHold, type OrderRecord } from './order-record.ts';

export type { AssignmentHold } from './order-record.ts';

/** A change of a plan applied in place, named by its plan route's claim (functions/field/route-change.ts). */
export interface ChangeRef {
  planId: string;
  vehicleRouteId: string;
  routeId: string;
}

const changeKey = (ref: ChangeRef): string => `${ref.planId}/${ref.vehicleRouteId}/${ref.routeId}`;

/**
 * Which changes of plans applied in place have committed: their claim reads `assigned` for that
 * route. One GetItem per distinct claim (a page of orders or a route's stops name few).
 */
export const committedChanges = async (tenantId: string, refs: ChangeRef[]): Promise<(ref: ChangeRef) => boolean> => {
  const unique = new Map(refs.map((ref) => [changeKey(ref), ref]));
  const done = new Set<string>();
  await Promise.all(
    [...unique.entries()].map(async ([key, ref]) => {
      const claim = await readClaim(tenantId, ref.planId, ref.vehicleRouteId);
      if (claim?.state === 'assigned' && claim.routeId === ref.routeId) done.add(key);
    }),
  );
  return (ref) => done.has(changeKey(ref));
}

/** The planned-route claim of an assignment, as its chunks and rollbacks read it. */
export interface AssignmentClaim {
  routeId: string;
  state: 'assigning' | 'assigned' | 'released';
  /** The run of a request that may write the assignment's chunks (a fencing token). */
  owner: string;
  /** A hash of the request body: the same request may take its own assignment over at once. */
  fingerprint: string;
  /** Epoch ms; after it, any request for the plan route (or for one of its orders) may take over. */
  leaseUntil: number;
  orderIds: string[];
  stopIds: string[];
  /** A plan applied in place (decisions 17): what the change did, kept for a run that comes after it committed. */
  outcome?: unknown;
}

/**
 * 30 s, above the field function's 10 s timeout: a live request is never taken over. Tests of
 * dead assignments shorten it (ROUTE_ASSIGNMENT_LEASE_SECONDS) instead of waiting.
 */
export const assignmentLeaseMs = (): number => Number(process.env.ROUTE_ASSIGNMENT_LEASE_SECONDS || 30) * 1000;

export class AssignmentInProgressError extends StateConflictError {
  constructor(message = 'A route assignment holding these orders is in progress; retry in a moment.') {
    super(message, 'assignment_in_progress');
  }
}

export const toClaim = (item: Record<string, unknown>): AssignmentClaim => ({
  routeId: item.routeId as string,
  // Claims written before assignments came in chunks are whole assignments.
  state: (item.state as AssignmentClaim['state'] | undefined) ?? 'assigned',
  owner: (item.owner as string | undefined) ?? '',
  fingerprint: (item.fingerprint as string | undefined) ?? '',
  leaseUntil: (item.leaseUntil as number | undefined) ?? 0,
  orderIds: (item.orderIds as string[] | undefined) ?? [],
  stopIds: (item.stopIds as string[] | undefined) ?? [],
  outcome: item.outcome,
});

export const readClaim = async (tenantId: string, planId: string, vehicleRouteId: string): Promise<AssignmentClaim | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.planRouteClaim(tenantId, planId, vehicleRouteId), ConsistentRead: true }));
  return Item ? toClaim(Item) : undefined;
};

/**
 * Which of these routes exist: an assignment writes its route item last, with its event. One
 * GetItem per route (an unfinished or uncleared assignment is rare, and a page's orders share few
 * routes), so every function that reads orders keeps the grants it has.
 */
const existingRoutes = async (tenantId: string, routeIds: string[]): Promise<Set<string>> => {
  const unique = [...new Set(routeIds)];
  const found = await Promise.all(
    unique.map(async (id) => {
      const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.route(tenantId, id), ConsistentRead: true, ProjectionExpression: 'routeId' }));
      return Item ? id : undefined;
    }),
  );
  return new Set(found.filter((id): id is string => id !== undefined));
};

/**
 * Orders as readers must see them: one held by an assignment whose route does not exist yet is
 * the pending order it was (with `heldBy` for the writers that must not take it meanwhile).
 */
export const resolveHolds = async (tenantId: string, orders: OrderRecord[]): Promise<OrderRecord[]> => {
  const held = orders.filter((o) => o.hold);
  if (held.length === 0) return orders;
  const routes = await existingRoutes(tenantId, held.filter((o) => !o.hold!.inPlace).map((o) => o.hold!.routeId));
  const committed = await committedChanges(tenantId, held.filter((o) => o.hold!.inPlace).map((o) => o.hold!));
  return orders.map((order) => {
    const hold = order.hold;
    if (!hold || (hold.inPlace ? committed(hold) : routes.has(hold.routeId))) return order;
    const before = hold.from ? { state: 'assigned' as const, routeId: hold.from.routeId, stopId: hold.from.stopId } : { state: 'pending' as const, routeId: null, stopId: null };
    return { ...order, ...before, version: hold.version, updatedAt: hold.updatedAt, heldBy: hold };
  });
};

/**
 * Fences a dead assignment (its lease ran out) so that its request, should it wake up, can
 * write nothing more, then rolls it back. Throws AssignmentInProgressError while it is alive.
 */
export const releaseDeadAssignment = async (tenantId: string, hold: Pick<AssignmentHold, 'planId' | 'vehicleRouteId' | 'routeId'>, token: string, now: Date): Promise<void> => {
  const key = opsKeys.planRouteClaim(tenantId, hold.planId, hold.vehicleRouteId);
  try {
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #owner = :token, leaseUntil = :lease',
        ConditionExpression: '#state = :assigning AND routeId = :route AND leaseUntil < :now',
        ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
        ExpressionAttributeValues: { ':token': token, ':lease': now.getTime() + assignmentLeaseMs(), ':assigning': 'assigning', ':route': hold.routeId, ':now': now.getTime() },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const claim = await readClaim(tenantId, hold.planId, hold.vehicleRouteId);
    // It finished, or someone else released it, meanwhile: read again.
    if (!claim || claim.routeId !== hold.routeId || claim.state !== 'assigning') throw new ReadOutdatedError();
    throw new AssignmentInProgressError();
  }
  await rollBackAssignment(tenantId, hold.planId, hold.vehicleRouteId, token);
};

const ROLLBACK_CHUNK = 99;

/**
 * Writes back every order the assignment moved (each from its hold) and releases the claim; the
 * caller owns the claim (`token`). Its stops stay, unreachable: no route item leads to them, and
 * the plan route's next assignment reuses the route and stop ids and writes them again.
 */
export const rollBackAssignment = async (tenantId: string, planId: string, vehicleRouteId: string, token: string): Promise<void> => {
  const claimKey = opsKeys.planRouteClaim(tenantId, planId, vehicleRouteId);
  const claim = await readClaim(tenantId, planId, vehicleRouteId);
  if (!claim || claim.owner !== token || claim.state !== 'assigning') throw new AssignmentInProgressError();
  // One GetItem each, not BatchGetItem: a cancel (the orders function) may run this, and holds no BatchGetItem grant.
  const stored = await Promise.all(
    claim.orderIds.map(async (id) => (await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.order(tenantId, id), ConsistentRead: true }))).Item),
  );
  const moved = stored.filter((item): item is Record<string, unknown> => item !== undefined).map(toOrderRecord).filter((o) => o.hold?.routeId === claim.routeId);
  // An update rather than a ConditionCheck: the orders function (a cancel releasing a dead assignment) is granted no ConditionCheckItem.
  const fence: Write = {
    item: {
      Update: {
        TableName: tableName(),
        Key: claimKey,
        UpdateExpression: 'SET #owner = :token',
        ConditionExpression: '#owner = :token',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':token': token },
      },
    },
    onConditionFailed: () => new AssignmentInProgressError(),
  };
  for (let i = 0; i < moved.length; i += ROLLBACK_CHUNK) {
    const writes: Write[] = moved.slice(i, i + ROLLBACK_CHUNK).map((order) => {
      const hold = order.hold!;
      const back = hold.from ? { state: 'assigned' as const, routeId: hold.from.routeId, stopId: hold.from.stopId } : { state: 'pending' as const, routeId: null, stopId: null };
      const before: OrderRecord = { ...order, ...back, version: hold.version, updatedAt: hold.updatedAt };
      return {
        item: {
          Put: {
            TableName: tableName(),
            Item: orderItem(tenantId, before),
            ConditionExpression: 'assigning.routeId = :route AND version = :version',
            ExpressionAttributeValues: { ':route': claim.routeId, ':version': order.version },
          },
        },
        onConditionFailed: () => new ReadOutdatedError(),
      };
    });
    await commit([fence, ...writes]);
  }
  await commit([
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: claimKey,
          UpdateExpression: 'SET #state = :released REMOVE #owner, leaseUntil, fingerprint',
          ConditionExpression: '#owner = :token',
          ExpressionAttributeNames: { '#owner': 'owner', '#state': 'state' },
          ExpressionAttributeValues: { ':token': token, ':released': 'released' },
        },
      },
      onConditionFailed: () => new AssignmentInProgressError(),
    },
  ]);
};

/** After the route exists the holds only cost readers a look-up: remove them (best effort). */
export const clearHolds = async (tenantId: string, routeId: string, orderIds: string[]): Promise<void> =>
  runInLanes(
    orderIds.map((id) => async () => {
      try {
        await table().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: opsKeys.order(tenantId, id),
            UpdateExpression: 'REMOVE assigning',
            ConditionExpression: 'assigning.routeId = :route',
            ExpressionAttributeValues: { ':route': routeId },
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }),
  );
