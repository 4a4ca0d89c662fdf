import { nowIso } from '../../../shared/clock.ts';
import { PAGE_LIMIT, type BillingProvider, type ProviderSession, type ProviderShipping } from '../../../shared/ports/billing-provider/port.ts';
import type { IntentRecord, Submission } from '../intent-record.ts';
import { answerWindowEndsAt } from './answer-window.ts';
import { claimOf } from './claims.ts';
import type { Candidate, LookupProgress } from './lookup-state.ts';
import { readLinesWhole } from './shipping-lines.ts';
import { headerLikeness, linesLikeness, worst } from './shipping-match.ts';

export type { LookupProgress, ShippingLookup } from './lookup-state.ts';

/**
 * A guide's search at the provider (docs/guides-exactly-once.md). The provider documents no
 * salesId de-duplication for shippings, so after a send whose outcome is unknown the guide is
 * found by looking its shipping up (`GET /v1/shippings.json` by day, office and shipping type) and
 * matching the shipping's own fields and its lines, read whole (decisions 19).
 */

/** Page reads one look takes before it saves its place for the next run (inside the look's 8 s deadline). */
export const LOOKUP_BUDGET_MS = 5_000;

export type LookupOutcome =
  | { kind: 'found'; guideId: string }
  | { kind: 'absent' }
  | { kind: 'not_yet'; windowEndsAt: string }
  | { kind: 'ambiguous'; guideIds: string[] }
  | { kind: 'paused'; progress: LookupProgress };

export interface LookupInput {
  provider: BillingProvider;
  session: ProviderSession;
  intent: IntentRecord;
  submission: Submission;
  shippingTypeId: string;
  /** Whose guides the provider's documents are: claims are per provider company (claims.ts). */
  claimScope: string;
  now: Date;
  /** The send's own deadline: a send whose end was not recorded ended at the latest then. */
  sendDeadlineMs: number;
  signal?: AbortSignal;
  budgetMs?: number;
}

/**
 * Whether a listed shipping may be this intent's, and how sure: its own fields first (most of a
 * day's shippings end there, with no further call), then its lines read whole. Lines that cannot
 * be read whole make it a doubtful candidate, never a stranger (decisions 19).
 */
const candidateOf = async (input: LookupInput, shipping: ProviderShipping): Promise<Candidate | undefined> => {
  const { intent, submission, shippingTypeId } = input;
  const header = headerLikeness(shipping, intent, submission, shippingTypeId);
  if (header === 'other') return undefined;
  const base = { shippingId: shipping.id, guideId: shipping.guideId, ownSalesId: shipping.guide?.salesId === intent.correlationId };
  const read = await readLinesWhole(input.provider, input.session, shipping, input.signal);
  if (read.kind === 'unreadable') return { ...base, doubt: 'unreadable' };
  const likeness = worst(header, linesLikeness(read.lines, intent));
  if (likeness === 'other') return undefined;
  return likeness === 'near' ? { ...base, doubt: 'near' } : base;
};

/**
 * One look (possibly the continuation of one): pages through the day's shippings of the office
 * and type from the saved offset, at most `budgetMs`, then decides. Nothing found proves absence
 * only for a look that began after the answer window of the latest send had passed. A read that
 * fails throws: the look has not ended, and goes on from its saved place next time.
 */
export const lookUpShipping = async (input: LookupInput): Promise<LookupOutcome> => {
  const { provider, session, intent, submission, shippingTypeId, now } = input;
  const started = Date.now();
  const progress: LookupProgress = intent.shippingLookup?.progress
    ? { ...intent.shippingLookup.progress, candidates: [...intent.shippingLookup.progress.candidates] }
    : { offset: 0, candidates: [], startedAt: nowIso(now) };
  const filter = { shippingDate: submission.emissionDate, officeId: submission.officeId, shippingTypeId };
  // The budget is checked after a page, never before: every look moves on by at least one page,
  // however slow the machine, so a busy day always ends.
  for (let offset: number | null = progress.offset; offset !== null; ) {
    const page = await provider.listShippings(session, filter, { offset, limit: PAGE_LIMIT, signal: input.signal });
    for (const shipping of page.items) {
      if (progress.candidates.some((c) => c.shippingId === shipping.id)) continue;
      const candidate = await candidateOf(input, shipping);
      if (candidate) progress.candidates.push(candidate);
    }
    // A listed shipping that cannot be read at all (no id) could be this guide's: never proof of absence.
    for (const [i, bad] of (page.invalid ?? []).entries()) {
      const shippingId = `unreadable:${offset}:${i}:${bad.externalId ?? ''}`;
      if (!progress.candidates.some((c) => c.shippingId === shippingId)) progress.candidates.push({ shippingId, guideId: null, ownSalesId: false, doubt: 'unreadable' });
    }
    offset = page.nextOffset;
    progress.offset = offset ?? progress.offset;
    if (offset !== null && Date.now() - started >= (input.budgetMs ?? LOOKUP_BUDGET_MS)) return { kind: 'paused', progress: { ...progress, offset } };
  }
  return decide(input, progress);
};

const named = (c: Candidate): string => c.guideId ?? `shipping:${c.shippingId}`;

/**
 * One candidate that matches as sent, and none whose lines could not be read: found. Several
 * alike, or any in doubt (lines unreadable; or only near ones): ambiguous, held for an admin.
 * None at all: absent, once the answer window had passed when the look began.
 */
const decide = async (input: LookupInput, progress: LookupProgress): Promise<LookupOutcome> => {
  const { intent } = input;
  const open: Candidate[] = [];
  for (const candidate of progress.candidates) {
    const holder = candidate.guideId ? await claimOf(input.claimScope, candidate.guideId, intent) : undefined;
    if (holder === undefined || holder.intentId === intent.id) open.push(candidate);
  }
  const exact = open.filter((c) => !c.doubt);
  const unreadable = open.filter((c) => c.doubt === 'unreadable');
  if (exact.length > 0) {
    const own = exact.filter((c) => c.ownSalesId);
    const chosen = own.length === 1 ? own : exact;
    if (chosen.length === 1 && unreadable.length === 0) {
      const guideId = chosen[0]!.guideId;
      // Its shipping is there but not yet its guide: look again later.
      return guideId ? { kind: 'found', guideId } : { kind: 'not_yet', windowEndsAt: progress.startedAt };
    }
    return { kind: 'ambiguous', guideIds: [...chosen, ...unreadable].map(named) };
  }
  if (open.length > 0) return { kind: 'ambiguous', guideIds: open.map(named) };
  const windowEnds = answerWindowEndsAt(input.submission, input.sendDeadlineMs);
  if (Date.parse(progress.startedAt) >= windowEnds) return { kind: 'absent' };
  return { kind: 'not_yet', windowEndsAt: new Date(windowEnds).toISOString() };
};
