import { nowIso } from '../../shared/clock.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { InvalidTransitionError } from './errors.ts';
import { checkVersion, getIntent, saveIntent, type IntentRecord } from './intent-record.ts';
import type { LocalState } from './schemas.ts';
import { moveTo } from './state.ts';

/** The moves a person makes before anything reaches the provider (decisions 9). */
const MOVES = {
  review: { from: ['draft'], to: 'reviewed', verb: 'reviewed' },
  approve: { from: ['reviewed'], to: 'approved', verb: 'approved' },
  cancel: { from: ['draft', 'reviewed', 'approved'], to: 'cancelled', verb: 'cancelled' },
} as const satisfies Record<string, { from: readonly LocalState[]; to: LocalState; verb: string }>;

export type Move = keyof typeof MOVES;

export const moveIntent = async (tenantId: string, intentId: string, move: Move, version: number, now: Date): Promise<{ record: IntentRecord; writes: Write[] }> => {
  const current = await getIntent(tenantId, intentId);
  checkVersion(current, version);
  const rule = MOVES[move];
  if (!(rule.from as readonly LocalState[]).includes(current.localState)) throw new InvalidTransitionError(rule.verb, current.localState);
  // Once sent, the provider may still show the document later: only issuing again (same salesId) is safe.
  if (move === 'cancel' && current.submission) throw new InvalidTransitionError('cancelled once it reached the provider', current.localState);
  // Cancelling releases a credit note's quantities (moveTo writes the ledger); the others change the intent only.
  if (move === 'cancel') return moveTo(current, { localState: 'cancelled', providerState: current.providerState, taxState: current.taxState }, now);
  const record: IntentRecord = { ...current, localState: rule.to, version: current.version + 1, updatedAt: nowIso(now) };
  return { record, writes: [saveIntent(record, { version, localState: current.localState })] };
};
