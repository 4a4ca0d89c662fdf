import type { ProviderShipping, ShippingDetail } from '../../../shared/ports/billing-provider/port.ts';
import type { IntentRecord, Submission } from '../intent-record.ts';
import { quantityToWire, toMicro } from '../money.ts';

/**
 * How a shipping at the provider compares with what a guide intent sent (decisions 19):
 * - `same`: equal in every field the provider answers, allowing only what it is documented to
 *   change: an empty text answered as null (its documentation's shippings answer `"address": null`
 *   and `"municipality": ""` alike; decisions 10 reads both as empty) and quantities as JSON numbers;
 * - `near`: equal only once text is loosened (case, accents, spacing and punctuation) or lines are
 *   summed per item and rounded to hundredths, which the provider is not documented to do: it may
 *   be this guide changed by the provider, so it is never taken for this guide, and never lets a
 *   look-up conclude that there is none (the guide is held for an admin);
 * - `other`: not this guide's shipping.
 */
export type Likeness = 'same' | 'near' | 'other';

const RANK: Record<Likeness, number> = { same: 0, near: 1, other: 2 };
export const worst = (...all: Likeness[]): Likeness => all.reduce((a, b) => (RANK[b] > RANK[a] ? b : a), 'same');

/** The documented change only: an empty text comes back as null. */
const sameText = (answered: string | null | undefined, sent: string | null | undefined): boolean => (answered ?? '') === (sent ?? '');

/** Text as an undocumented normalisation could leave it: no accents, case, punctuation or extra spaces. */
const loose = (value: string | null | undefined): string =>
  (value ?? '').normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

const textLikeness = (pairs: [string | null | undefined, string | null | undefined][]): Likeness => {
  if (pairs.every(([a, b]) => sameText(a, b))) return 'same';
  return pairs.every(([a, b]) => loose(a) === loose(b)) ? 'near' : 'other';
};

/**
 * What the shipping says of itself and of its guide, lines aside: office, type and date exactly
 * (the look-up's filters), address, comuna, city and recipient as text, and with the guide
 * expanded its document type and client (none for an internal transfer).
 */
export const headerLikeness = (shipping: ProviderShipping, intent: IntentRecord, submission: Submission, shippingTypeId: string): Likeness => {
  if (shipping.officeId !== submission.officeId || shipping.shippingTypeId !== shippingTypeId) return 'other';
  if (shipping.shippingDate !== undefined && shipping.shippingDate !== null && shipping.shippingDate !== submission.emissionDate) return 'other';
  const guide = shipping.guide;
  if (guide) {
    if (guide.documentTypeId !== null && guide.documentTypeId !== submission.documentTypeId) return 'other';
    const client = intent.destinationOfficeId ? null : (intent.customerExternalId ?? null);
    if (guide.clientId !== undefined && (guide.clientId ?? null) !== client) return 'other';
  }
  const target = intent.shipping;
  return textLikeness([
    [shipping.address, target?.address],
    [shipping.municipality, target?.municipality],
    [shipping.city, target?.city],
    [shipping.recipient, target?.recipient],
  ]);
};

interface SentLine {
  variantId: string | null;
  quantity: number;
  note: string | null;
}

const sentLines = (intent: IntentRecord): SentLine[] =>
  intent.lines.map((line) => ({ variantId: line.variantExternalId, quantity: quantityToWire(toMicro(line.quantity)), note: line.variantExternalId ? null : line.description }));

const exactKeys = (lines: { variantId: string | null; quantity: number }[]): string => lines.map((l) => `${l.variantId ?? '-'}|${l.quantity}`).sort().join(',');

/** Per item (a variant, or a described line's loosened text when every described line answers one), the quantity summed. */
const totals = (lines: SentLine[], byNote: boolean): Map<string, number> => {
  const out = new Map<string, number>();
  for (const line of lines) {
    const key = line.variantId ? `v:${line.variantId}` : byNote ? `n:${loose(line.note)}` : '-';
    out.set(key, (out.get(key) ?? 0) + line.quantity);
  }
  return out;
};

/**
 * The shipping's lines, read whole, against the intent's: `same` as a multiset of (variant or
 * none, quantity), with a described line's comment when the provider answers one (it documents
 * none for shippings); `near` when only the per-item totals agree to the hundredth.
 */
export const linesLikeness = (lines: ShippingDetail[], intent: IntentRecord): Likeness => {
  const sent = sentLines(intent);
  const answeredNotes = lines.filter((d) => d.variantId === null && d.note !== null);
  const described = sent.filter((l) => l.variantId === null);
  const notesAnswered = described.length > 0 && answeredNotes.length === lines.filter((d) => d.variantId === null).length && answeredNotes.length > 0;
  const notesSame = !notesAnswered || answeredNotes.map((d) => d.note ?? '').sort().join('\n') === described.map((l) => l.note ?? '').sort().join('\n');
  if (exactKeys(lines) === exactKeys(sent) && notesSame) return 'same';
  const mine = totals(sent, notesAnswered);
  const theirs = totals(lines, notesAnswered);
  if (mine.size !== theirs.size) return 'other';
  for (const [key, quantity] of mine) {
    const other = theirs.get(key);
    if (other === undefined || Math.abs(other - quantity) >= 0.005) return 'other';
  }
  return 'near';
};
