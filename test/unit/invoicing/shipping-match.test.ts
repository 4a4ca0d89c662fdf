import { describe, expect, it } from 'vitest';
import { matches } from '../../../functions/invoicing/guides/shipping-lookup.ts';
import type { IntentRecord, Submission } from '../../../functions/invoicing/intent-record.ts';
import type { ProviderShipping } from '../../../shared/ports/billing-provider/port.ts';

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
const shipping: ProviderShipping = {
  id: '700', guideId: '90', shippingTypeId: '1', officeId: '1', shippingDate: DAY,
  address: 'San Pablo 3000 ', municipality: null, city: 'Santiago', recipient: 'Recibe Bodega',
  guide,
  details: [{ quantity: 0.5, variantId: null, note: 'Aceite 1 L' }, { quantity: 2, variantId: '5', note: null }],
};

describe('a guide look-up matches a shipping on its own fields (decisions 16)', () => {
  it('takes the shipping the intent sent: lines in any order, an empty comuna answered as null, spaces trimmed', () => {
    expect(matches(shipping, intent, submission, '1')).toBe(true);
    expect(matches({ ...shipping, guide: null }, intent, submission, '1')).toBe(true); // the guide not expanded: the fields decide
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
      { details: [{ quantity: 2, variantId: '5', note: null }] },
      { details: [{ quantity: 1, variantId: null, note: 'Aceite 1 L' }, { quantity: 2, variantId: '5', note: null }] },
      { details: [{ quantity: 0.5, variantId: null, note: 'Vinagre 1 L' }, { quantity: 2, variantId: '5', note: null }] },
      { details: null }, // lines not readable: nothing to match on
      { guide: { ...guide, documentTypeId: '1' } },
      { guide: { ...guide, clientId: '3' } },
    ];
    for (const change of differing) expect(matches({ ...shipping, ...change }, intent, submission, '1'), JSON.stringify(change)).toBe(false);
    expect(matches(shipping, intent, submission, '6')).toBe(false);
  });

  it('an internal transfer names no client: a guide with one is not its shipping', () => {
    const transfer = { ...intent, destinationOfficeId: '2' } as IntentRecord;
    expect(matches(shipping, transfer, submission, '1')).toBe(false);
    expect(matches({ ...shipping, guide: { ...guide, clientId: null } }, transfer, submission, '1')).toBe(true);
  });
});
