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

  it('creates a shipping and its guide once per salesId: a repeat answers the earlier shipping', async () => {
    const made = await adapter.createShipping(session, shipping('guide-1'));
    expect(made.created).toBe(true);
    expect(made.value).toMatchObject({ shippingTypeId: '1', officeId: '1' });
    const guide = await adapter.getDocument(session, made.value.guideId!);
    expect(guide).toMatchObject({ salesId: 'guide-1', documentTypeId: GUIDE_TYPE, informedSii: 0, emissionDate: DAY });
    expect(guide!.number).toMatch(/^[1-9][0-9]*$/);
    const again = await adapter.createShipping(session, shipping('guide-1', { recipient: 'Otra persona' }));
    expect(again).toEqual({ created: false, value: made.value });
    expect(fake.shippings(session.accessToken).filter((s) => s.salesId === 'guide-1')).toHaveLength(1);
    expect(fake.documents(session.accessToken).filter((d) => d.salesId === 'guide-1')).toHaveLength(1);
    // The lookup that never creates is the documents lookup of the guide type.
    const found = await adapter.findDocumentsBySalesId(session, { salesId: 'guide-1', documentTypeId: GUIDE_TYPE, emissionDateFrom: DAY, emissionDateTo: DAY });
    expect(found).toEqual([guide]);
    // The body on the wire, as provider-chile.md lists it.
    const sent = fake.shippings(session.accessToken).find((s) => s.salesId === 'guide-1')!;
    expect(sent).toMatchObject({ address: 'Av. Los Leones 1200', municipality: 'Providencia', city: 'Santiago', recipient: 'Rosa Contreras', shippingDate: DAY });
    expect((await adapter.getDocumentDetails(session, guide!.id)).map((d) => [d.quantity, d.netUnitValue])).toEqual([[2, 1000], [3, 0]]);
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

  it('reports a timeout after the provider kept the shipping as unknown; the guide lookup then finds it and a retry answers it', async () => {
    fake.faults.add({ route: 'POST /v1/shippings.json', kind: 'timeout_after_apply' });
    const error = await adapterWith({ timeoutMs: 300 }).createShipping(session, shipping('guide-3')).catch((e: unknown) => e);
    expect((error as ProviderUnavailableError).reason).toBe('timeout');
    const found = await adapter.findDocumentsBySalesId(session, { salesId: 'guide-3', documentTypeId: GUIDE_TYPE, emissionDateFrom: DAY, emissionDateTo: DAY });
    expect(found).toHaveLength(1);
    const retry = await adapter.createShipping(session, shipping('guide-3'));
    expect(retry.created).toBe(false);
    expect(retry.value.guideId).toBe(found[0]!.id);
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
    expect(fake.references(session.accessToken, Number(issued.value.id))).toEqual([{ number: guide.number, referenceDate: DAY, dteCodeSii: 52, reason: '' }]);
    // Without references none are sent.
    const plain = await adapter.issueDocument(session, { ...invoice, salesId: 'invoice-plain', references: [] });
    expect(fake.references(session.accessToken, Number(plain.value.id))).toEqual([]);
  });
});
