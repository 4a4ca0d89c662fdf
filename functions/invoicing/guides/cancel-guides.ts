import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { StateConflictError } from '../../../shared/errors.ts';
import { commit, ReadOutdatedError, type Write } from '../../../shared/table/transaction.ts';
import { findIntent, type IntentRecord } from '../intent-record.ts';
import { moveTo } from '../state.ts';

/**
 * A guide that counts as never submitted: `approved` with nothing of it at the provider, because
 * it was never sent, or because its sends were proven absent (a look-up after the answer window,
 * an admin's resolve to none, a 401 answered before anything applied: `providerState` not_sent).
 * Its order's or route's cancel cancels it (decisions 16, 19). One whose send may be held by the
 * provider (submitting, unknown, issued...) stays.
 */
export const neverSubmitted = (intent: IntentRecord): boolean =>
  intent.documentKind === 'dispatch_guide' && intent.localState === 'approved' && (!intent.submission || intent.providerState === 'not_sent');

/**
 * The guide's move to `cancelled`: the intent's write is conditional on the version and state it
 * was read at, so a worker whose `submitting` commit lands first wins (this write then fails, the
 * guide stays live) and one that comes later finds it cancelled and skips it (issueIntent and
 * the reconciler issue only `approved` intents). The stop's copy moves in the same transaction
 * (guideMoveWrite). A lost race is ReadOutdatedError: a request runs again and reads the winner.
 */
export const cancelGuideWrites = async (intent: IntentRecord, now: Date): Promise<Write[]> => {
  const { writes } = await moveTo(intent, { localState: 'cancelled', providerState: intent.providerState, taxState: intent.taxState }, now);
  return writes.map((write) => ({ ...write, onConditionFailed: () => new ReadOutdatedError() }));
};

/**
 * Cancels a never-submitted guide outside a request (a route's cancel after its commit, a worker
 * that finds its route cancelled). Answers whether it cancelled it; a guide taken meanwhile (its
 * `submitting` committed) is left to whoever took it.
 */
export const cancelGuideIfUnsent = async (tenantId: string, intentId: string, now: Date): Promise<boolean> => {
  const intent = await findIntent(tenantId, intentId);
  if (!intent || !neverSubmitted(intent)) return false;
  try {
    await commit(await cancelGuideWrites(intent, now));
    return true;
  } catch (error) {
    if (error instanceof StateConflictError || error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
};
