import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderRefusedError, ProviderTokenRejectedError, ProviderUnavailableError } from '../../../shared/ports/billing-provider/errors.ts';
import type { IssueDocumentInput, ProviderSession } from '../../../shared/ports/billing-provider/port.ts';
import { MAX_ANSWER_BYTES, ProviderChile } from '../../../shared/ports/billing-provider/provider-chile.ts';
import { startProviderFake, type ProviderFake } from '../../support/provider-fake/index.ts';
import { WAIT_LIMIT_MS } from '../../support/wait-limit.ts';

const COMPANY = { clientCode: '76086428-5', clientName: 'Frutas del Maule SpA' };
const OTHER = { clientCode: '96790240-3', clientName: 'Transportes Biobío Ltda.' };
const DAY = Math.floor(Date.UTC(2026, 10, 23) / 1000);

let fake: ProviderFake;
let adapter: ProviderChile;
let session: ProviderSession;
let otherToken: string;

// The deadline of an ordinary call is the suite's wait limit: the fake answers from the same loaded
// machine (docs/testing.md). The tests of a timeout give their own.
const adapterWith = (over: Partial<ConstructorParameters<typeof ProviderChile>[0]> = {}) =>
  new ProviderChile({ apiUrl: fake.apiUrl, oauthUrl: fake.oauthUrl, appId: fake.appId, userToken: async () => fake.userToken, timeoutMs: WAIT_LIMIT_MS, ...over });

beforeAll(async () => {
  fake = await startProviderFake();
  const offices = Array.from({ length: 130 }, (_, i) => ({ id: 130 - i, name: `Sucursal ${130 - i}`, state: i % 10 === 0 ? 1 : 0 }));
  session = { accessToken: fake.addCompany(COMPANY, { offices }) };
  otherToken = fake.addCompany(OTHER);
  adapter = adapterWith();
  fake.setRateLimit(null);
});
afterAll(() => fake?.stop());
beforeEach(() => fake.faults.clear());

const invoice = (salesId: string): IssueDocumentInput => ({
  documentTypeId: '3',
  officeId: '1',
  emissionDate: DAY,
  salesId,
  details: [
    { variantId: '5', quantity: 2, netUnitValue: 1000, taxId: '1' },
    { comment: 'Flete', quantity: 1, netUnitValue: 2500 },
  ],
});

describe('provider-chile-v1 against the fake provider', () => {
  it('exchanges an approved code for the company’s token, and reads a refused, used or expired one as a refusal', async () => {
    const grant = await adapter.exchangeCode(await fake.approve(COMPANY.clientCode));
    expect(grant).toEqual({ accessToken: session.accessToken, clientCode: COMPANY.clientCode, clientName: COMPANY.clientName });
    const code = await fake.approve(COMPANY.clientCode);
    await adapter.exchangeCode(code);
    await expect(adapter.exchangeCode(code)).rejects.toBeInstanceOf(ProviderRefusedError);
    await expect(adapter.exchangeCode('0123456789abcdef')).rejects.toBeInstanceOf(ProviderRefusedError);
    const late = await fake.approve(COMPANY.clientCode);
    fake.expireCodes();
    await expect(adapter.exchangeCode(late)).rejects.toBeInstanceOf(ProviderRefusedError);
    // Wrong integrator credentials are an HTTP 4xx: also a refusal, per provider-chile.md.
    await expect(adapterWith({ userToken: async () => 'wrong' }).exchangeCode(await fake.approve(COMPANY.clientCode))).rejects.toBeInstanceOf(ProviderRefusedError);
  });

  it('treats 5xx, 429, timeouts and resets of the exchange as unknown, and the code stays good', async () => {
    const code = await fake.approve(COMPANY.clientCode);
    for (const fault of [{ kind: 'status', status: 502 }, { kind: 'status', status: 429 }, { kind: 'reset' }, { kind: 'hang' }] as const) {
      fake.faults.add({ route: 'POST /gateway/oauth_response.json', ...fault });
      // A hang ends only at the caller's deadline.
      const error = await (fault.kind === 'hang' ? adapterWith({ timeoutMs: 300 }) : adapter).exchangeCode(code).catch((e: unknown) => e);
      expect(error, fault.kind).toBeInstanceOf(ProviderUnavailableError);
    }
    expect((await adapter.exchangeCode(code)).clientCode).toBe(COMPANY.clientCode);
  });

  it('pages at 50 with state=0, lowest offsets first, until next is gone', async () => {
    const first = await adapter.listOffices(session, { activeOnly: true });
    expect(first.items).toHaveLength(50);
    expect(first.nextOffset).toBe(50);
    const seen = [...first.items];
    let offset = first.nextOffset;
    while (offset !== null) {
      const page = await adapter.listOffices(session, { offset, activeOnly: true });
      seen.push(...page.items);
      offset = page.nextOffset;
    }
    expect(seen).toHaveLength(117);
    expect(seen.every((o) => o.active)).toBe(true);
    const reads = fake.requests.filter((r) => r.path.startsWith('/v1/offices.json'));
    expect(reads.every((r) => r.path.includes('limit=50') && r.path.includes('state=0'))).toBe(true);
    const types = await adapter.listDocumentTypes(session, { activeOnly: true });
    expect(types.items.find((t) => t.name === 'NOTA DE VENTA')).toMatchObject({ codeSii: null, isElectronic: false });
    expect(types.items.find((t) => t.codeSii === '61')).toMatchObject({ isCreditNote: true });
    const taxes = await adapter.listTaxes(session, { activeOnly: true });
    expect(taxes.items).toEqual([{ id: '1', name: 'IVA', percentage: 19, code: '14', active: true }]);
  });

  it('gives up as unknown when the caller’s own deadline has passed, before asking the provider', async () => {
    const asked = fake.requests.length;
    const error = await adapter.listOffices(session, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as ProviderUnavailableError).reason).toBe('timeout');
    expect(fake.requests.length).toBe(asked);
  });

  it('reads variants, stocks, clients and contacts in the port’s shapes', async () => {
    const variants = await adapter.listVariants(session);
    expect(variants.items[0]).toMatchObject({ id: '1', code: 'SKU-0001', productId: '100', active: true, version: null });
    expect(variants.nextOffset).toBe(50);
    expect((await adapter.listVariants(session, { offset: 50 })).nextOffset).toBeNull();
    const stock = (await adapter.listStocks(session)).items[0]!;
    expect(stock).toMatchObject({ variantId: '1', officeId: '1' });
    expect(typeof stock.quantity).toBe('number');
    const clients = (await adapter.listClients(session)).items;
    const company = clients.find((c) => c.company !== null)!;
    expect(company.firstName).toBeNull(); // an empty provider string is null
    const contacts = await adapter.listContacts(session, company.id);
    expect(contacts.items.length).toBeGreaterThan(0);
  });

  it('issues a document once per salesId: a repeat answers the earlier one, and a lookup finds it without creating', async () => {
    const made = await adapter.issueDocument(session, invoice('intent-1'));
    expect(made.created).toBe(true);
    expect(made.value).toMatchObject({ salesId: 'intent-1', documentTypeId: '3', informedSii: 0, emissionDate: DAY });
    const again = await adapter.issueDocument(session, invoice('intent-1'));
    expect(again).toEqual({ created: false, value: made.value });
    expect(fake.documents(session.accessToken).filter((d) => d.salesId === 'intent-1')).toHaveLength(1);
    const found = await adapter.findDocumentsBySalesId(session, { salesId: 'intent-1', documentTypeId: '3', emissionDateFrom: DAY, emissionDateTo: DAY });
    expect(found.map((d) => d.id)).toEqual([made.value.id]);
    expect(await adapter.findDocumentsBySalesId(session, { salesId: 'intent-none', documentTypeId: '3', emissionDateFrom: DAY, emissionDateTo: DAY })).toEqual([]);
    expect(await adapter.getDocument(session, made.value.id)).toEqual(made.value);
    expect(await adapter.getDocument(session, '999999')).toBeUndefined();
    const details = await adapter.getDocumentDetails(session, made.value.id);
    expect(details.map((d) => [d.quantity, d.netUnitValue])).toEqual([
      [2, 1000],
      [1, 2500],
    ]);
    // The other company's token does not see it.
    expect(await adapter.getDocument({ accessToken: otherToken }, made.value.id)).toBeUndefined();
  });

  it('reports a timeout after the provider applied the document as unknown; the lookup then finds it', async () => {
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'timeout_after_apply' });
    const quick = adapterWith({ timeoutMs: 300 });
    const error = await quick.issueDocument(session, invoice('intent-2')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as ProviderUnavailableError).reason).toBe('timeout');
    const found = await adapter.findDocumentsBySalesId(session, { salesId: 'intent-2', documentTypeId: '3', emissionDateFrom: DAY, emissionDateTo: DAY });
    expect(found).toHaveLength(1);
  });

  it('reads a 2xx answer without an id as unknown (bad_answer), not as a crash; the lookup then finds the document', async () => {
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'no_id' });
    const error = await adapter.issueDocument(session, invoice('intent-no-id')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ reason: 'bad_answer', providerStatus: 201 });
    const found = await adapter.findDocumentsBySalesId(session, { salesId: 'intent-no-id', documentTypeId: '3', emissionDateFrom: DAY, emissionDateTo: DAY });
    expect(found).toHaveLength(1);
    fake.faults.add({ route: `GET /v1/documents/${found[0]!.id}.json`, kind: 'no_id' });
    await expect(adapter.getDocument(session, found[0]!.id)).rejects.toMatchObject({ reason: 'bad_answer', providerStatus: 200 });
  });

  it('maps 429 and 5xx before applying to unknown, 401 to a rejected token and 400 to a refusal', async () => {
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'status', status: 429 });
    expect(await adapter.issueDocument(session, invoice('intent-3')).catch((e) => e)).toMatchObject({ reason: 'rate_limited', status: 503 });
    fake.faults.add({ route: 'POST /v1/documents.json', kind: 'status', status: 500 });
    expect(await adapter.issueDocument(session, invoice('intent-3')).catch((e) => e)).toMatchObject({ reason: 'server_error' });
    fake.faults.add({ route: 'GET /v1/offices.json', kind: 'reset' });
    expect(await adapter.listOffices(session).catch((e) => e)).toMatchObject({ reason: 'network' });
    expect(fake.documents(session.accessToken).filter((d) => d.salesId === 'intent-3')).toHaveLength(0);
    await expect(adapter.listOffices({ accessToken: 'not-a-token' })).rejects.toBeInstanceOf(ProviderTokenRejectedError);
    const refused = await adapter.issueDocument(session, { ...invoice('intent-4'), documentTypeId: '7' }).catch((e) => e);
    expect(refused).toBeInstanceOf(ProviderRefusedError);
    expect((refused as ProviderRefusedError).providerStatus).toBe(400);
  });

  it('reads at most 5 MiB of an answer: a larger one is unknown (too_large), a large one within the cap is read', async () => {
    const officesOf = (bytes: number) => Array.from({ length: 50 }, (_, i) => ({ id: i + 1, name: `${i}`.padEnd(bytes, 'x'), state: 0 }));
    const big = { accessToken: fake.addCompany({ clientCode: '76123456-0', clientName: 'Grande' }, { offices: officesOf(Math.ceil(MAX_ANSWER_BYTES / 50) + 1_000) }) };
    const error = await adapter.listOffices(big).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((error as ProviderUnavailableError).reason).toBe('too_large');
    const fits = { accessToken: fake.addCompany({ clientCode: '77777777-7', clientName: 'Casi grande' }, { offices: officesOf(Math.floor(MAX_ANSWER_BYTES / 50) - 1_000) }) };
    expect((await adapter.listOffices(fits)).items).toHaveLength(50);
  });

  it('reads a paged list to at most maxPagesPerCall pages, then answers unknown instead of reading on', async () => {
    const many = { ...invoice('intent-pages'), details: Array.from({ length: 120 }, (_, i) => ({ comment: `Línea ${i + 1}`, quantity: 1, netUnitValue: 100 })) };
    const doc = (await adapter.issueDocument(session, many)).value;
    expect(await adapter.getDocumentDetails(session, doc.id)).toHaveLength(120);
    const asked = fake.requests.length;
    const error = await adapterWith({ maxPagesPerCall: 2 }).getDocumentDetails(session, doc.id).catch((e: unknown) => e);
    expect((error as ProviderUnavailableError).reason).toBe('too_large');
    expect(fake.requests.length - asked).toBe(2);
    // A lookup pages through the day's documents of the type: more than one page of them now.
    for (let i = 0; i < 50; i++) await adapter.issueDocument(session, invoice(`bulk-${i}`));
    const lookup = { salesId: 'bulk-49', documentTypeId: '3', emissionDateFrom: DAY, emissionDateTo: DAY };
    expect(await adapter.findDocumentsBySalesId(session, lookup)).toHaveLength(1);
    const cut = await adapterWith({ maxPagesPerCall: 1 }).findDocumentsBySalesId(session, lookup).catch((e: unknown) => e);
    expect((cut as ProviderUnavailableError).reason).toBe('too_large');
  });

  it('credits a document through a return once per salesId, and refuses more than remains', async () => {
    const doc = (await adapter.issueDocument(session, invoice('intent-5'))).value;
    const [line] = await adapter.getDocumentDetails(session, doc.id);
    const input = { documentTypeId: '5', officeId: '1', referenceDocumentId: doc.id, emissionDate: DAY, motive: 'Devolución', salesId: 'credit-1', details: [{ documentDetailId: line!.id, quantity: 1 }] };
    const made = await adapter.createReturn(session, input);
    expect(made.created).toBe(true);
    expect(made.value.referenceDocumentId).toBe(doc.id);
    expect(made.value.creditNoteId).toBeTruthy();
    const note = await adapter.getDocument(session, made.value.creditNoteId!);
    expect(note?.documentTypeId).toBe('5');
    expect(await adapter.createReturn(session, input)).toEqual({ created: false, value: made.value });
    const over = await adapter.createReturn(session, { ...input, salesId: 'credit-2', details: [{ documentDetailId: line!.id, quantity: 5 }] }).catch((e) => e);
    expect(over).toBeInstanceOf(ProviderRefusedError);
  });
});
