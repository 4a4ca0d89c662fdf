import { describe, expect, it } from 'vitest';
import { headerLikeness, linesLikeness, type Likeness } from '../../../functions/invoicing/guides/shipping-match.ts';
import type { IntentRecord, Submission } from '../../../functions/invoicing/intent-record.ts';
import type { ProviderShipping, ShippingDetail } from '../../../shared/ports/billing-provider/port.ts';

const DAY = Math.floor(Date.UTC(2026, 10, 23) / 1000);
const submission: Submission = { documentTypeId: '8', officeId: '1', emissionDate: DAY, firstSubmittedAt: '', submittedAt: '' };
const line = (position: number, description: string, quantity: string, variantExternalId: string | null) => ({
  position, conceptKey: 'goods', description, quantity, unitPriceMinor: '0', lineTotalMinor: '0', catalogItemId: null, creditedPosition: null, variantExternalId,
});
const intent = {
  correlationId: 'c-1',
  customerExternalId: '2',
  shipping: { address: 'San Pablo 3000', municipality: '', city: 'Santiago', recipient: 'Recibe Bodega' },
  lines: [line(1, 'Harina 25 kg', '2', '5'), line(2, 'Aceite 1 L', '0.5', null)],
} as unknown as IntentRecord;
const guide = { id: '90', number: '7', salesId: null, documentTypeId: '8', informedSii: 0, responseMsgSii: null, totalAmount: 0, netAmount: 0, taxAmount: 0, urlPdf: null, emissionDate: DAY, clientId: '2' };
const lines: ShippingDetail[] = [{ quantity: 0.5, variantId: null, note: 'Aceite 1 L' }, { quantity: 2, variantId: '5', note: null }];
const whole = (items: ShippingDetail[]) => ({ items, count: items.length, offset: 0, invalid: [] });
const shipping: ProviderShipping = {
  id: '700', guideId: '90', shippingTypeId: '1', officeId: '1', shippingDate: DAY,
  address: 'San Pablo 3000', municipality: null, city: 'Santiago', recipient: 'Recibe Bodega',
  guide,
  details: whole(lines),
};
/** How a shipping compares, its lines included (the look-up reads them whole first). */
const likeness = (s: ProviderShipping, i: IntentRecord = intent, type = '1'): Likeness => {
  const header = headerLikeness(s, i, submission, type);
  if (header === 'other') return 'other';
  const byLines = linesLikeness(s.details!.items, i);
  return header === 'near' || byLines === 'near' ? (byLines === 'other' ? 'other' : 'near') : byLines;
};

describe('a guide look-up compares a shipping with what the intent sent (decisions 16, 19)', () => {
  it('takes the shipping the intent sent as the same: lines in any order, an empty comuna answered as null (documented)', () => {
    expect(likeness(shipping)).toBe('same');
    expect(likeness({ ...shipping, guide: null })).toBe('same'); // the guide not expanded: the fields decide
    expect(likeness({ ...shipping, municipality: '' })).toBe('same');
  });

  it('calls near, never same, what only an undocumented change explains (spaces, case, accents, lines merged or rounded)', () => {
    const near: Partial<ProviderShipping>[] = [
      { address: 'San Pablo 3000 ' },
      { address: 'SAN PABLO 3000' },
      { recipient: 'Recibe  Bodega.' },
      { city: 'Santiágo' },
      { details: whole([{ quantity: 0.5, variantId: null, note: 'aceite 1 l' }, { quantity: 2, variantId: '5', note: null }]) },
      { details: whole([{ quantity: 0.5, variantId: null, note: 'Aceite 1 L' }, { quantity: 1.5, variantId: '5', note: null }, { quantity: 0.5, variantId: '5', note: null }]) },
      { details: whole([{ quantity: 0.501, variantId: null, note: 'Aceite 1 L' }, { quantity: 2, variantId: '5', note: null }]) },
    ];
    for (const change of near) expect(likeness({ ...shipping, ...change }), JSON.stringify(change)).toBe('near');
  });

  it('refuses a shipping that differs in any field it answers', () => {
    const differing: Partial<ProviderShipping>[] = [
      { officeId: '2' },
      { shippingTypeId: '6' },
      { shippingDate: DAY + 86_400 },
      { address: 'San Pablo 3001' },
      { recipient: 'Otro' },
      { municipality: 'Quilicura' },
      { city: null },
      { details: whole([{ quantity: 2, variantId: '5', note: null }]) },
      { details: whole([{ quantity: 1, variantId: null, note: 'Aceite 1 L' }, { quantity: 2, variantId: '5', note: null }]) },
      { details: whole([{ quantity: 0.5, variantId: null, note: 'Vinagre 1 L' }, { quantity: 2, variantId: '5', note: null }]) },
      { details: whole([...lines, { quantity: 1, variantId: '6', note: null }]) },
      { guide: { ...guide, documentTypeId: '1' } },
      { guide: { ...guide, clientId: '3' } },
    ];
    for (const change of differing) expect(likeness({ ...shipping, ...change }), JSON.stringify(change)).toBe('other');
    expect(likeness(shipping, intent, '6')).toBe('other');
  });

  it('an internal transfer names no client: a guide with one is not its shipping', () => {
    const transfer = { ...intent, destinationOfficeId: '2' } as IntentRecord;
    expect(likeness(shipping, transfer)).toBe('other');
    expect(likeness({ ...shipping, guide: { ...guide, clientId: null } }, transfer)).toBe('same');
  });
});
