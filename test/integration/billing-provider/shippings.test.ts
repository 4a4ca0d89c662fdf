import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderRefusedError, ProviderTokenRejectedError, ProviderUnavailableError } from '../../../shared/ports/billing-provider/errors.ts';
import type { CreateShippingInput, IssueDocumentInput, ProviderSession } from '../../../shared/ports/billing-provider/port.ts';
import { ProviderChile } from '../../../shared/ports/billing-provider/provider-chile.ts';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';

const COMPANY = { clientCode: '76086428-5', clientName: 'Frutas del Maule SpA' };
const DAY = Math.floor(Date.UTC(2026, 10, 23) / 1000);
const GUIDE_TYPE = '8'; // the fake's active codeSii 52 type (7 is an inactive one)

let fake: ProviderFake;
let adapter: ProviderChile;
let session: ProviderSession;

const adapterWith = (over: Partial<ConstructorParameters<typeof ProviderChile>[0]> = {}) =>
  new ProviderChile({ apiUrl: fake.apiUrl, oauthUrl: fake.oauthUrl, appId: fake.appId, userToken: async () => fake.userToken, timeoutMs: 2_000, ...over });

beforeAll(async () => {
  fake = await startProviderFake();
  session = { accessToken: fake.addCompany(COMPANY) };
  adapter = adapterWith();
  fake.setRateLimit(null);
});
afterAll(() => fake?.stop());
beforeEach(() => fake.faults.clear());

const shipping = (salesId: string, over: Partial<CreateShippingInput> = {}): CreateShippingInput => ({
  documentTypeId: GUIDE_TYPE,
  officeId: '1',
  emissionDate: DAY,
  shippingTypeId: '1',
  salesId,
  clientId: '2',
  address: 'Av. Los Leones 1200',
  municipality: 'Providencia',
  city: 'Santiago',
  recipient: 'Rosa Contreras',
  details: [
    { variantId: '5', quantity: 2, netUnitValue: 1000, taxId: '1' },
    { comment: 'Cajas retornables', quantity: 3, netUnitValue: 0 },
  ],
  ...over,
});

describe('provider-chile-v1 dispatch guides against the fake provider', () => {
  it('lists the active shipping types with state=0, codeSii as text', async () => {
    const page = await adapter.listShippingTypes(session, { activeOnly: true });
    expect(fake.requests.at(-1)!.path).toMatch(/^\/v1\/shipping_types\.json\?.*state=0/);
    expect(page.nextOffset).toBeNull();
    const byCode = new Map(page.items.map((t) => [t.codeSii, t]));
    expect(byCode.get('1')).toEqual({ id: '1', name: 'Operación constituye venta', codeSii: '1', useDestinationOffice: false, active: true });
    expect(byCode.get('5')).toMatchObject({ name: 'Traslados internos', useDestinationOffice: true });
    expect(byCode.get('6')).toMatchObject({ name: 'Otros traslados no venta' });
    expect(byCode.has('9')).toBe(false); // inactive in the fake's catalogue
    expect((await adapter.listShippingTypes(session)).items).toHaveLength(9);
  });

  it('creates a shipping and its guide on every call: a repeated salesId is a second shipping (the provider promises nothing else)', async () => {
    const made = await adapter.createShipping(session, shipping('guide-1'));
    expect(made.created).toBe(true);
    expect(made.value).toMatchObject({ shippingTypeId: '1', officeId: '1', shippingDate: DAY, address: 'Av. Los Leones 1200', recipient: 'Rosa Contreras' });
    const guide = await adapter.getDocument(session, made.value.guideId!);
    expect(guide).toMatchObject({ salesId: null, documentTypeId: GUIDE_TYPE, informedSii: 0, emissionDate: DAY, clientId: '2' });
    expect(guide!.number).toMatch(/^[1-9][0-9]*$/);
    const again = await adapter.createShipping(session, shipping('guide-1', { recipient: 'Otra persona' }));
    expect(again.created).toBe(true);
    expect(again.value.id).not.toBe(made.value.id);
    expect(fake.shippings(session.accessToken).filter((s) => s.salesId === 'guide-1')).toHaveLength(2);
    // The body on the wire, as provider-chile.md lists it.
    const sent = fake.shippings(session.accessToken).find((s) => s.salesId === 'guide-1')!;
    expect(sent).toMatchObject({ address: 'Av. Los Leones 1200', municipality: 'Providencia', city: 'Santiago', recipient: 'Rosa Contreras', shippingDate: DAY });
    expect((await adapter.getDocumentDetails(session, guide!.id)).map((d) => [d.quantity, d.netUnitValue])).toEqual([[2, 1000], [3, 0]]);
  });

  it('lists the day’s shippings of an office and type, expanded with the guide and the lines, page by page', async () => {
    const day = DAY + 10 * 86_400;
    for (let i = 0; i < 52; i++) await adapter.createShipping(session, shipping(`list-${i}`, { emissionDate: day, recipient: `R${i}` }));
    await adapter.createShipping(session, shipping('list-other', { emissionDate: day, shippingTypeId: '6' }));
    const filter = { shippingDate: day, officeId: '1', shippingTypeId: '1' };
    const first = await adapter.listShippings(session, filter, { offset: 0 });
    expect(fake.requests.at(-1)!.path).toContain(`shippingdate=${day}&officeid=1&shippingtypeid=1&expand=%5Bguide%2Cdetails%5D`);
    expect([first.items.length, first.count, first.nextOffset]).toEqual([50, 52, 50]);
    expect(first.items[0]).toMatchObject({ recipient: 'R0', shippingDate: day, guide: { documentTypeId: GUIDE_TYPE, clientId: '2' } });
    expect(first.items[0]!.details).toEqual([{ quantity: 2, variantId: '5', note: null }, { quantity: 3, variantId: null, note: 'Cajas retornables' }]);
    const rest = await adapter.listShippings(session, filter, { offset: 50 });
    expect([rest.items.map((s) => s.recipient), rest.nextOffset]).toEqual([['R50', 'R51'], null]);
  });

  it('an internal transfer sends destinationOfficeId and no client', async () => {
    const made = await adapter.createShipping(session, shipping('transfer-1', { shippingTypeId: '5', destinationOfficeId: '2' }));
    expect(fake.shippings(session.accessToken).find((s) => s.salesId === 'transfer-1')).toMatchObject({ destinationOfficeId: 2 });
    expect(await adapter.getDocument(session, made.value.guideId!)).toMatchObject({ clientId: null });
    await expect(adapter.createShipping(session, shipping('transfer-2', { shippingTypeId: '5' }))).rejects.toBeInstanceOf(ProviderRefusedError);
  });

  it('sends nothing for a call whose signal was aborted before it left', async () => {
    const before = fake.shippings(session.accessToken).length;
    const error = await adapter.createShipping(session, shipping('aborted-1'), { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect((error as ProviderUnavailableError).reason).toBe('timeout');
    expect(fake.shippings(session.accessToken)).toHaveLength(before);
  });

  it('reads a refusal as a refusal, and 429, 5xx, timeouts and resets as unknown', async () => {
    for (const bad of [{ shippingTypeId: '9' }, { documentTypeId: '1' }, { address: '' }, { details: [] }]) {
      const error = await adapter.createShipping(session, shipping('guide-bad', bad)).catch((e: unknown) => e);
      expect(error, JSON.stringify(bad)).toBeInstanceOf(ProviderRefusedError);
      expect((error as ProviderRefusedError).providerStatus).toBe(400);
    }
    await expect(adapter.createShipping({ accessToken: 'not-a-token' }, shipping('guide-bad'))).rejects.toBeInstanceOf(ProviderTokenRejectedError);
    for (const fault of [{ kind: 'status', status: 429 }, { kind: 'status', status: 502 }, { kind: 'reset' }] as const) {
      fake.faults.add({ route: 'POST /v1/shippings.json', ...fault });
      expect(await adapter.createShipping(session, shipping('guide-2')).catch((e: unknown) => e), fault.kind).toBeInstanceOf(ProviderUnavailableError);
    }
    expect(fake.shippings(session.accessToken).some((s) => s.salesId === 'guide-2' || s.salesId === 'guide-bad')).toBe(false);
  });

  it('reports a timeout after the provider kept the shipping as unknown; the shipping look-up then finds it', async () => {
    const day = DAY + 20 * 86_400;
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'timeout_after_apply' });
    const error = await adapterWith({ timeoutMs: 300 }).createShipping(session, shipping('guide-3', { emissionDate: day })).catch((e: unknown) => e);
    expect((error as ProviderUnavailableError).reason).toBe('timeout');
    const found = await adapter.listShippings(session, { shippingDate: day, officeId: '1', shippingTypeId: '1' });
    expect(found.items).toHaveLength(1);
    expect(found.items[0]!.guideId).toBe(String(fake.shippings(session.accessToken).find((s) => s.salesId === 'guide-3')!.guide.id));
  });

  it('sends references on the invoice: the guide’s folio, its date and SII code 52', async () => {
    const made = await adapter.createShipping(session, shipping('guide-4'));
    const guide = (await adapter.getDocument(session, made.value.guideId!))!;
    const invoice: IssueDocumentInput = {
      documentTypeId: '1',
      officeId: '1',
      emissionDate: DAY,
      salesId: 'invoice-of-guides-1',
      clientId: '2',
      details: [{ variantId: '5', quantity: 2, netUnitValue: 1000, taxId: '1' }],
      references: [{ number: guide.number!, referenceDate: guide.emissionDate!, dteCodeSii: 52, reason: '' }],
    };
    const issued = await adapter.issueDocument(session, invoice);
    // On the wire as the provider names it: codeSii.
    expect(fake.references(session.accessToken, Number(issued.value.id))).toEqual([{ number: guide.number, referenceDate: DAY, codeSii: 52, reason: '' }]);
    // Without references none are sent.
    const plain = await adapter.issueDocument(session, { ...invoice, salesId: 'invoice-plain', references: [] });
    expect(fake.references(session.accessToken, Number(plain.value.id))).toEqual([]);
  });
});
