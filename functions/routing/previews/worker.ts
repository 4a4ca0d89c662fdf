import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { addSeconds, nowIso } from '../../../shared/clock.ts';
import { NotFoundError } from '../../../shared/errors.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import type { PreviewMessage } from '../../../shared/ports/preview-queue.ts';
import { planningEngine } from '../../../shared/planning/engine.ts';
import { defaultWork } from '../../../shared/planning/optimizer/budget.ts';
import { tableName } from '../../../shared/table/client.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { commit, type Write } from '../../../shared/table/transaction.ts';
import { findOrders } from '../../orders/records.ts';
import { getPreviewItem } from '../preview-record.ts';
import { dayClock } from './day-clock.ts';
import { endPreviewWrites, PreviewOvertakenError } from './finish.ts';
import { AUDIT_COMPLETED, AUDIT_SOLVING, deadlineOf, leaseMarginSeconds, solvingDue } from './lifecycle.ts';
import { buildProblem } from './problem.ts';
import { requestOf } from './request.ts';
import { previewResult } from './schedule.ts';

/** Another worker holds the preview and its lease has not ended: the message comes back later. */
export class PreviewLeaseHeldError extends Error {}

export type PreviewRun = 'missing' | 'ended-already' | 'ready' | 'failed' | 'overtaken';

/**
 * queued → solving, or solving again when the worker that held it died (its lease ended): a
 * conditional write on the version read, so of two deliveries of one message only one solves.
 */
export const claimPreview = async (tenantId: string, item: Record<string, unknown>, now: Date, requestId: string): Promise<Record<string, unknown>> => {
  const request = requestOf(item);
  const at = nowIso(now);
  const previewId = item.previewId as string;
  const leaseToken = newId();
  const leaseUntil = nowIso(addSeconds(now, request.timeLimitSeconds + leaseMarginSeconds()));
  const solvingSince = (item.solvingSince as string | undefined) ?? at;
  const deadlineAt = deadlineOf(solvingSince, request.timeLimitSeconds);
  const due = solvingDue(previewId, leaseUntil, deadlineAt);
  const version = (item.version as number) + 1;
  const attempt = ((item.attempt as number | undefined) ?? 0) + 1;
  const update: Write = {
    item: {
      Update: {
        TableName: tableName(),
        Key: opsKeys.preview(tenantId, previewId),
        UpdateExpression:
          'SET #state = :solving, version = :next, updatedAt = :at, leaseToken = :token, leaseUntil = :lease, attempt = :attempt, solvingSince = :since, deadlineAt = :deadline, gsi2pk = :gpk, gsi2sk = :gsk',
        ConditionExpression: 'version = :version AND (#state = :queued OR (#state = :solving AND leaseUntil <= :at))',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':solving': 'solving',
          ':queued': 'queued',
          ':next': version,
          ':version': item.version,
          ':at': at,
          ':token': leaseToken,
          ':lease': leaseUntil,
          ':attempt': attempt,
          ':since': solvingSince,
          ':deadline': deadlineAt,
          ':gpk': due.gsi2pk,
          ':gsk': due.gsi2sk,
        },
      },
    },
    onConditionFailed: () => new PreviewLeaseHeldError(`preview ${previewId} changed while it was claimed`),
  };
  await commit([update, auditWrite({ tenantId, actorId: SYSTEM_ACTOR_ID, action: AUDIT_SOLVING, resourceId: previewId, requestId, now })]);
  return { ...item, state: 'solving', version, updatedAt: at, leaseToken, leaseUntil, attempt, solvingSince, deadlineAt, ...due };
};

/** The routes of a claimed preview, or why it failed. Reading the orders may throw (the table): the message is then retried. */
const solve = async (tenantId: string, item: Record<string, unknown>) => {
  const request = requestOf(item);
  const found = await findOrders(tenantId, request.orderIds);
  const started = Date.now();
  try {
    const orders = request.orderIds.map((id) => {
      const order = found.get(id);
      if (!order) throw new Error(`order ${id} no longer exists`);
      return order;
    });
    const clock = dayClock(item.serviceDate as string, request.timeZone);
    const problem = buildProblem(request, orders, clock);
    // The budget is work, not time (decisions 18): the same request and seed give the same routes on
    // any machine; the time limit only stops a machine too slow for it (`stoppedBy: 'time'`).
    const solution = await planningEngine().solve(problem, { seconds: request.timeLimitSeconds, seed: request.seed, work: defaultWork(request.timeLimitSeconds) });
    if (solution.stats.stoppedBy === 'time') logger.warn('route preview stopped by its time limit before its work budget', { previewId: item.previewId as string, work: solution.stats.work });
    const routeOf = new Map((request.routes ?? []).map((r) => [r.vehicleId, r.routeId]));
    const result = previewResult(
      problem,
      solution,
      {
        orderIds: request.orderIds,
        vehicleIds: request.vehicles.map((v) => v.vehicleId),
        references: orders.map((o) => o.reference),
        vehicles: request.vehicles.map((v) => ({ label: v.label ?? null, plate: v.plate ?? null, routeId: routeOf.get(v.vehicleId) ?? null })),
      },
      clock,
    );
    return { state: 'ready' as const, failure: null, ...result, elapsedMs: solution.stats.elapsedMs, stoppedBy: solution.stats.stoppedBy };
  } catch (error) {
    logger.error('route preview failed', { previewId: item.previewId as string, error: error as Error });
    const message = `The optimizer could not plan this preview: ${(error as Error).message}`.slice(0, 500);
    return { state: 'failed' as const, failure: { code: 'solver_error', message }, routes: [], unassigned: [], totals: null, elapsedMs: Date.now() - started, stoppedBy: null };
  }
};

/**
 * One delivery of a preview's message: claim it, solve it, and end it ready or failed with its
 * audit entry and event, in one transaction that only the lease holder can make. A message for
 * a preview that has ended does nothing; one whose preview another live worker holds throws
 * (PreviewLeaseHeldError), so the queue hands it over again after its visibility timeout.
 */
export const runPreview = async (message: PreviewMessage, requestId = newId(), clock: () => Date = () => new Date()): Promise<PreviewRun> => {
  let item: Record<string, unknown>;
  try {
    item = await getPreviewItem(message.tenantId, message.previewId);
  } catch (error) {
    if (error instanceof NotFoundError) return 'missing';
    throw error;
  }
  if (item.state === 'ready' || item.state === 'failed') return 'ended-already';
  const now = clock();
  if (item.state === 'solving' && (item.leaseUntil as string) > nowIso(now)) throw new PreviewLeaseHeldError(`preview ${message.previewId} is being solved until ${item.leaseUntil as string}`);
  const claimed = await claimPreview(message.tenantId, item, now, requestId);
  const outcome = await solve(message.tenantId, claimed);
  const { writes } = endPreviewWrites(message.tenantId, claimed, outcome, {
    now: clock(),
    action: AUDIT_COMPLETED,
    requestId,
    condition: { expression: '#state = :solving AND leaseToken = :token', names: { '#state': 'state' }, values: { ':solving': 'solving', ':token': claimed.leaseToken } },
  });
  try {
    await commit(writes);
  } catch (error) {
    // The sweeper timed it out, or a worker that found the lease over solved it again: theirs stands.
    if (error instanceof PreviewOvertakenError) return 'overtaken';
    throw error;
  }
  return outcome.state;
};
