import { nowIso } from '../../../shared/clock.ts';
import { PAGE_LIMIT, type BillingProvider, type ProviderSession, type ProviderShipping } from '../../../shared/ports/billing-provider/port.ts';
import type { IntentRecord, Submission } from '../intent-record.ts';
import { quantityToWire, toMicro } from '../money.ts';
import { claimOf } from './claims.ts';

/**
 * A guide's search at the provider (docs/guides-exactly-once.md). The provider documents no
 * salesId de-duplication for shippings, so after a send whose outcome is unknown the guide is
 * found by looking its shipping up (`GET /v1/shippings.json` by day, office and shipping type) and
 * matching the shipping's own fields and lines.
 */
export interface ShippingLookup {
  /** The shipping type every attempt sends (fixed by the first, as the submission's type and date are). */
  shippingTypeId: string;
  /** A look-up under way across reconciler runs: its next offset, what matched so far, when it began. */
  progress: LookupProgress | null;
  /** The guides the last finished look-up could not tell apart: an admin settles the intent (resolve). */
  ambiguous: string[] | null;
}

export interface LookupProgress {
  offset: number;
  candidates: Candidate[];
  startedAt: string;
}

interface Candidate {
  shippingId: string;
  guideId: string | null;
  /** The provider echoed this intent's salesId on the guide: a tie-breaker only, never a proof of absence. */
  ownSalesId: boolean;
}

/**
 * How long after a send the provider may still apply it. Bsale documents no processing time; a
 * request it took in is applied or dropped within its own gateway's timeout (typically 60 s), and
 * we wait ten times that before "no such shipping" counts as proof that none will appear.
 */
export const ANSWER_WINDOW_MS = 10 * 60_000;
/** Page reads one look takes before it saves its place for the next run (inside the look's 8 s deadline). */
export const LOOKUP_BUDGET_MS = 5_000;

export type LookupOutcome =
  | { kind: 'found'; guideId: string }
  | { kind: 'absent' }
  | { kind: 'not_yet'; windowEndsAt: string }
  | { kind: 'ambiguous'; guideIds: string[] }
  | { kind: 'paused'; progress: LookupProgress };

const text = (value: string | null | undefined): string => (value ?? '').trim();

/** A line's key as the provider lists it and as the intent sent it: variant (or none) and quantity. */
const lineKeys = (lines: { variantId: string | null; quantity: number }[]): string[] => lines.map((l) => `${l.variantId ?? '-'}|${l.quantity}`).sort();

/** Whether the shipping is what this intent sent: every field we sent that the provider answers. */
export const matches = (shipping: ProviderShipping, intent: IntentRecord, submission: Submission, shippingTypeId: string): boolean => {
  const target = intent.shipping;
  if (shipping.officeId !== submission.officeId || shipping.shippingTypeId !== shippingTypeId) return false;
  if (shipping.shippingDate !== undefined && shipping.shippingDate !== null && shipping.shippingDate !== submission.emissionDate) return false;
  if (text(shipping.address) !== text(target?.address) || text(shipping.recipient) !== text(target?.recipient)) return false;
  if (text(shipping.municipality) !== text(target?.municipality) || text(shipping.city) !== text(target?.city)) return false;
  if (!shipping.details) return false;
  const sent = intent.lines.map((line) => ({ variantId: line.variantExternalId, quantity: quantityToWire(toMicro(line.quantity)) }));
  if (lineKeys(shipping.details).join(',') !== lineKeys(sent).join(',')) return false;
  // A described line whose comment the provider answers must be ours too.
  const notes = shipping.details.filter((d) => d.variantId === null && d.note !== null).map((d) => text(d.note)).sort();
  const described = intent.lines.filter((l) => l.variantExternalId === null).map((l) => text(l.description)).sort();
  if (notes.length === described.length && notes.join('\n') !== described.join('\n')) return false;
  const guide = shipping.guide;
  if (guide) {
    if (guide.documentTypeId !== null && guide.documentTypeId !== submission.documentTypeId) return false;
    const client = intent.destinationOfficeId ? null : (intent.customerExternalId ?? null);
    if (guide.clientId !== undefined && (guide.clientId ?? null) !== client) return false;
  }
  return true;
};

export interface LookupInput {
  provider: BillingProvider;
  session: ProviderSession;
  intent: IntentRecord;
  submission: Submission;
  shippingTypeId: string;
  now: Date;
  /** The send's own deadline: the provider's window starts when the last send could still leave. */
  sendDeadlineMs: number;
  signal?: AbortSignal;
  budgetMs?: number;
}

/**
 * One look (possibly the continuation of one): pages through the day's shippings of the office
 * and type from the saved offset, at most `budgetMs`, then decides. Nothing found proves absence
 * only for a look that began after the answer window of the latest send had passed.
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
      if (!matches(shipping, intent, submission, shippingTypeId) || progress.candidates.some((c) => c.shippingId === shipping.id)) continue;
      progress.candidates.push({ shippingId: shipping.id, guideId: shipping.guideId, ownSalesId: shipping.guide?.salesId === intent.correlationId });
    }
    offset = page.nextOffset;
    progress.offset = offset ?? progress.offset;
    if (offset !== null && Date.now() - started >= (input.budgetMs ?? LOOKUP_BUDGET_MS)) return { kind: 'paused', progress: { ...progress, offset } };
  }
  return decide(intent, submission, progress, input.sendDeadlineMs);
};

const decide = async (intent: IntentRecord, submission: Submission, progress: LookupProgress, sendDeadlineMs: number): Promise<LookupOutcome> => {
  const open: Candidate[] = [];
  for (const candidate of progress.candidates) {
    const holder = candidate.guideId ? await claimOf(intent.tenantId, intent.connectionId, candidate.guideId) : undefined;
    if (holder === undefined || holder === intent.id) open.push(candidate);
  }
  const own = open.filter((c) => c.ownSalesId);
  const chosen = own.length === 1 ? own : open;
  if (chosen.length === 1) {
    const guideId = chosen[0]!.guideId;
    // Its shipping is there but not yet its guide: look again later.
    return guideId ? { kind: 'found', guideId } : { kind: 'not_yet', windowEndsAt: progress.startedAt };
  }
  if (chosen.length > 1) return { kind: 'ambiguous', guideIds: chosen.map((c) => c.guideId ?? `shipping:${c.shippingId}`) };
  const windowEnds = Date.parse(submission.submittedAt) + sendDeadlineMs + ANSWER_WINDOW_MS;
  if (Date.parse(progress.startedAt) >= windowEnds) return { kind: 'absent' };
  return { kind: 'not_yet', windowEndsAt: new Date(windowEnds).toISOString() };
};
