import { addSeconds, nowIso } from '../../../shared/clock.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';

/**
 * The timing of a preview's life outside the request (decisions 15). A preview is on the
 * sweeper's index (opsKeys.previewDue) while it is queued or solving, under the time the sweeper
 * should next look at it; it leaves the index when it ends ready or failed.
 */

/** A queued preview whose message has not started it within this long is sent again. */
export const REQUEUE_AFTER_SECONDS = 60;
/** decisions 15: never solving past its time limit plus 5 minutes. */
export const TIMEOUT_GRACE_SECONDS = 300;

/**
 * A worker's claim lasts the time limit plus this margin (loading orders, building the
 * matrices, writing the result); then another delivery of the message may solve it again. The
 * worker Lambda's timeout must cover the whole lease (infra), or a live worker could be overtaken.
 */
export const leaseMarginSeconds = (): number => Number(process.env.PREVIEW_LEASE_MARGIN_SECONDS ?? 60);

/** When a preview that is not yet finished is given up: its time limit plus 5 minutes after it was asked, or after it first started solving. */
export const deadlineOf = (since: string, timeLimitSeconds: number): string => nowIso(addSeconds(new Date(since), timeLimitSeconds + TIMEOUT_GRACE_SECONDS));

const earlier = (a: string, b: string): string => (a < b ? a : b);

/** The index entry of a queued preview: looked at again in a minute, or at its deadline if sooner. */
export const queuedDue = (previewId: string, from: Date, deadline: string) => opsKeys.previewDue(previewId, earlier(nowIso(addSeconds(from, REQUEUE_AFTER_SECONDS)), deadline));

/** The index entry of a solving preview: looked at when its lease ends, or at its deadline if sooner. */
export const solvingDue = (previewId: string, leaseUntil: string, deadline: string) => opsKeys.previewDue(previewId, earlier(leaseUntil, deadline));

/** Audit actions of the jobs (decisions 12: a job names its own). Creation is the operation's own `createRoutePreview`. */
export const AUDIT_SOLVING = 'solveRoutePreview';
export const AUDIT_COMPLETED = 'completeRoutePreview';
export const AUDIT_TIMED_OUT = 'timeOutRoutePreview';
