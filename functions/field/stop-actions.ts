import { nowIso } from '../../shared/clock.ts';
import { StateConflictError } from '../../shared/errors.ts';
import { outboxEvent } from '../../shared/events/outbox.ts';
import type { Caller } from '../../shared/http/operation.ts';
import { tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { orderStateWrite } from '../orders/orders.ts';
import { getOrderRecord } from '../orders/records.ts';
import { assertMayAct } from './access.ts';
import { getRouteRecord, getStopRecord, stopItem, toStop, type StopRecord } from './records.ts';
import { requireRouteState, routeStartedCheck } from './route-writes.ts';
import { RECEIPT_DECLARATION, receiptWrite, type Receipt } from './receipt.ts';
import type { Evidence, Stop } from './schemas.ts';
import { enforceVerification } from './verification.ts';

type Outcome = { kind: 'delivered'; evidence: Evidence[]; receivedBy?: Receipt | null } | { kind: 'failed'; evidence: Evidence[]; reason: string };

/**
 * Records a stop's outcome: the stop, its order and the event commit together, and only while
 * the route is under way and the stop still open (a cancelled order's stop is not).
 */
export const settleStop = async (caller: Caller, routeId: string, stopId: string, outcome: Outcome): Promise<{ stop: Stop; writes: Write[] }> => {
  const route = await getRouteRecord(caller.tenantId, routeId);
  assertMayAct(caller, route);
  requireRouteState(route, ['started'], 'take stop outcomes');
  const current = await getStopRecord(caller.tenantId, routeId, stopId);
  if (current.state !== 'pending') throw new StateConflictError(`The stop is already ${current.state}.`);
  if (outcome.kind === 'delivered') enforceVerification(route.verification, outcome.evidence, Boolean(outcome.receivedBy));
  const at = nowIso(caller.now);
  const receipt = outcome.kind === 'delivered' ? outcome.receivedBy : null;
  const next: StopRecord = {
    ...current,
    state: outcome.kind,
    outcomeAt: at,
    evidence: outcome.evidence,
    evidenceCount: outcome.evidence.length,
    failureReason: outcome.kind === 'failed' ? outcome.reason : null,
    // The receipt of goods: shown on the stop only, never in the event below (decisions 14); stored in its own item.
    receivedBy: receipt ? { ...receipt, receivedAt: at, declaration: RECEIPT_DECLARATION } : null,
    version: current.version + 1,
  };
  const order = await getOrderRecord(caller.tenantId, current.orderId);
  const data = { routeId, stopId, orderId: current.orderId, reference: current.reference, outcomeAt: at, evidenceCount: next.evidenceCount };
  const event = outcome.kind === 'delivered' ? outboxEvent(caller.tenantId, 'field.stop.delivered', data, caller.now) : outboxEvent(caller.tenantId, 'field.stop.failed', data, caller.now);
  return {
    stop: toStop(next),
    writes: [
      routeStartedCheck(caller.tenantId, routeId),
      {
        item: {
          Put: {
            TableName: tableName(),
            Item: stopItem(caller.tenantId, routeId, next),
            ConditionExpression: '#state = :pending AND version = :version',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':pending': 'pending', ':version': current.version },
          },
        },
        onConditionFailed: (old) => new StateConflictError(`The stop is already ${(old?.state as string) ?? 'gone'}.`),
      },
      orderStateWrite(caller.tenantId, { ...order, state: outcome.kind, version: order.version + 1, updatedAt: at }, { state: 'assigned' }),
      event.write,
      ...(receipt ? [receiptWrite(caller.tenantId, routeId, stopId, receipt, at)] : []),
    ],
  };
};
