import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderRefusedError, ProviderTokenRejectedError, ProviderUnavailableError } from '../../../shared/ports/billing-provider/errors.ts';
import type { CreateShippingInput, IssueDocumentInput, ProviderSession } from '../../../shared/ports/billing-provider/port.ts';
import { ProviderChile } from '../../../shared/ports/billing-provider/provider-chile.ts';
import { readLinesWhole } from '../../../functions/invoicing/guides/shipping-lines.ts';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

const COMPANY = { clientCode: '76086428-5', clientName: 'Frutas del Maule SpA' };
const DAY = Math.floor(Date.UTC(2026, 10, 23) / 1000);
const GUIDE_TYPE = '8'; // the fake's active codeSii 52 type (7 is an inactive one)

let fake: ProviderFake;
let adapter: ProviderChile;
let session: ProviderSession;

// The deadline of an ordinary call is the suite's wait limit: the fake answers from the same loaded
// machine (docs/testing.md). The tests of a timeout give their own.
const adapterWith = (over: Partial<ConstructorParameters<typeof ProviderChile>[0]> = {}) =>
  new ProviderChile({ apiUrl: fake.apiUrl, oauthUrl: fake.oauthUrl, appId: fake.appId, userToken: async () => fake.userToken, timeoutMs: WAIT_LIMIT_MS, ...over });

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
    expect(first.items[0]!.details).toEqual({ items: [{ quantity: 2, variantId: '5', note: null }, { quantity: 3, variantId: null, note: 'Cajas retornables' }], count: 2, offset: 0, invalid: [] });
    const rest = await adapter.listShippings(session, filter, { offset: 50 });
    expect([rest.items.map((s) => s.recipient), rest.nextOffset]).toEqual([['R50', 'R51'], null]);
  });

  it('reads a shipping’s lines whole: the expansion’s first 25 with their count, the rest from details.json (decisions 19)', async () => {
    const day = DAY + 30 * 86_400;
    const lines = Array.from({ length: 60 }, (_, i) => ({ comment: `Caja ${i + 1}`, quantity: i + 1, netUnitValue: 0 }));
    await adapter.createShipping(session, shipping('lines-60', { emissionDate: day, details: lines }));
    const listed = (await adapter.listShippings(session, { shippingDate: day, officeId: '1', shippingTypeId: '1' })).items[0]!;
    expect([listed.details!.items.length, listed.details!.count, listed.details!.invalid]).toEqual([25, 60, []]);
    const rest = await adapter.listShippingDetails(session, listed.id, { offset: 25, limit: 50 });
    expect(fake.requests.at(-1)!.path).toBe(`/v1/shippings/${listed.id}/details.json?limit=50&offset=25`);
    expect([rest.items.length, rest.count, rest.items[0]!.note]).toEqual([35, 60, 'Caja 26']);
    const read = await readLinesWhole(adapter, session, listed);
    expect(read.kind === 'read' && read.lines.map((l) => l.quantity)).toEqual(lines.map((l) => l.quantity));
    // Not expanded at all: every line from details.json.
    const bare = await readLinesWhole(adapter, session, { ...listed, details: null });
    expect(bare.kind === 'read' && bare.lines).toHaveLength(60);
  });

  it('a line that does not parse, in the expansion or past it, makes the lines unreadable, never fewer lines; a failed read throws', async () => {
    const day = DAY + 31 * 86_400;
    const filter = { shippingDate: day, officeId: '1', shippingTypeId: '1' };
    await adapter.createShipping(session, shipping('lines-bad', { emissionDate: day }));
    const listed = (await adapter.listShippings(session, filter)).items[0]!;
    fake.damageShippingLines(session.accessToken, Number(listed.id));
    const damaged = (await adapter.listShippings(session, filter)).items[0]!;
    expect([damaged.details!.items.length, damaged.details!.count, damaged.details!.invalid.length]).toEqual([1, 2, 1]);
    expect(await readLinesWhole(adapter, session, damaged)).toMatchObject({ kind: 'unreadable' });
    // Past the expansion: its first 25 read, a bad line in the rest.
    const long = Array.from({ length: 30 }, (_, i) => ({ comment: `Saco ${i + 1}`, quantity: 1, netUnitValue: 0 }));
    await adapter.createShipping(session, shipping('lines-bad-rest', { emissionDate: day, details: long }));
    const thirty = (await adapter.listShippings(session, filter)).items[1]!;
    fake.faults.add({ route: 'GET /v1/shippings/{id}/details.json', kind: 'items', items: [{ quantity: 'x' }] });
    expect(await readLinesWhole(adapter, session, thirty)).toMatchObject({ kind: 'unreadable' });
    // A count the rest never reaches (a line lost between pages) is unreadable too.
    expect(await readLinesWhole(adapter, session, { ...thirty, details: { ...thirty.details!, count: 31 } })).toMatchObject({ kind: 'unreadable' });
    fake.faults.add({ route: 'GET /v1/shippings/{id}/details.json', kind: 'status', status: 500 });
    await expect(readLinesWhole(adapter, session, thirty)).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect(await readLinesWhole(adapter, session, thirty)).toMatchObject({ kind: 'read' });
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
