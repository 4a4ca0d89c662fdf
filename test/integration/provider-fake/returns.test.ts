import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderFake } from '../../support/provider-fake/index.ts';
import { call, DAY, receipt, startWithCompanies } from './client.ts';

let fake: ProviderFake;
let token: string;
afterEach(() => fake?.stop());

/** A receipt with two lines (2 units of variant 1, one described line) to credit against. */
const sold = async () => {
  const started = await startWithCompanies();
  fake = started.fake;
  token = started.tokenA;
  const document = (await call(fake, 'POST', '/v1/documents.json', { token, body: receipt('sale-1') })).body;
  const lines = (await call(fake, 'GET', `/v1/documents/${document.id}/details.json`, { token })).body.items;
  return { document, lines };
};

const returnBody = (referenceDocumentId: number, salesId: string, details: { documentDetailId: number; quantity: number }[]) => ({
  documentTypeId: 5, officeId: 1, referenceDocumentId, emissionDate: DAY, motive: 'Devolución', declareSii: 1,
  priceAdjustment: 0, editTexts: 0, type: 0, salesId, details: details.map((d) => ({ ...d, unitValue: 0 })),
});
const postReturn = (body: unknown) => call(fake, 'POST', '/v1/returns.json', { token, body });

describe('provider fake: POST /v1/returns.json', () => {
  it('issues a credit note readable as a document, for the credited lines at their price', async () => {
    const { document, lines } = await sold();
    const created = await postReturn(returnBody(document.id, 'credit-1', [{ documentDetailId: lines[0].id, quantity: 1 }]));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.any(Number), reference_document: { id: String(document.id) }, credit_note: { id: expect.any(String) } });
    const note = await call(fake, 'GET', `/v1/documents/${created.body.credit_note.id}.json`, { token });
    expect(note.body).toMatchObject({ number: 1, document_type: { id: '5' }, netAmount: 1000, taxAmount: 190, totalAmount: 1190, informedSii: 0, salesId: 'credit-1' });
    const noteLines = (await call(fake, 'GET', `/v1/documents/${created.body.credit_note.id}/details.json`, { token })).body.items;
    expect(noteLines.map((l: any) => [l.relatedDetailId, l.quantity])).toEqual([[lines[0].id, 1]]);
    expect(fake.returns(token)).toEqual([created.body]);
  });

  it('refuses a return for more than remains of a line with 400, and changes nothing', async () => {
    const { document, lines } = await sold();
    expect((await postReturn(returnBody(document.id, 'credit-1', [{ documentDetailId: lines[0].id, quantity: 1 }]))).status).toBe(201);
    const over = await postReturn(returnBody(document.id, 'credit-2', [
      { documentDetailId: lines[1].id, quantity: 1 },
      { documentDetailId: lines[0].id, quantity: 2 },
    ]));
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/remain/);
    expect(fake.returns(token)).toHaveLength(1);
    expect(fake.documents(token)).toHaveLength(2);
    // What remains (1 of line 0, 1 of line 1) can still be credited, in one return.
    const rest = await postReturn(returnBody(document.id, 'credit-3', [
      { documentDetailId: lines[0].id, quantity: 1 },
      { documentDetailId: lines[1].id, quantity: 1 },
    ]));
    expect(rest.status).toBe(201);
    const again = await postReturn(returnBody(document.id, 'credit-4', [{ documentDetailId: lines[1].id, quantity: 1 }]));
    expect(again.status).toBe(400);
  });

  it('the same line twice in one return counts both', async () => {
    const { document, lines } = await sold();
    const twice = await postReturn(returnBody(document.id, 'credit-1', [
      { documentDetailId: lines[0].id, quantity: 2 },
      { documentDetailId: lines[0].id, quantity: 1 },
    ]));
    expect(twice.status).toBe(400);
    expect(fake.returns(token)).toHaveLength(0);
  });

  it('a repeated salesId answers 200 with the earlier return and credits nothing more', async () => {
    const { document, lines } = await sold();
    const body = returnBody(document.id, 'credit-1', [{ documentDetailId: lines[0].id, quantity: 2 }]);
    const first = await postReturn(body);
    const again = await postReturn(body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(fake.returns(token)).toHaveLength(1);
    expect(fake.documents(token)).toHaveLength(2);
  });

  it.each([
    ['an unknown reference document', (id: number) => ({ referenceDocumentId: id + 999 }), 404],
    ['a type that is not a credit note', () => ({ documentTypeId: 3 }), 400],
    ['a line of another document', () => ({ details: [{ documentDetailId: 1, quantity: 1, unitValue: 0 }] }), 400],
    ['another client', () => ({ clientId: 5 }), 400],
    ['no motive', () => ({ motive: '' }), 400],
  ])('refuses %s', async (_, change, status) => {
    const { document, lines } = await sold();
    const refused = await postReturn({ ...returnBody(document.id, 'credit-x', [{ documentDetailId: lines[0].id, quantity: 1 }]), ...change(document.id) });
    expect(refused.status).toBe(status);
    expect(fake.returns(token)).toHaveLength(0);
    expect(fake.documents(token)).toHaveLength(1);
  });

  it('a credit note cannot itself be credited', async () => {
    const { document, lines } = await sold();
    const created = await postReturn(returnBody(document.id, 'credit-1', [{ documentDetailId: lines[0].id, quantity: 1 }]));
    const noteId = Number(created.body.credit_note.id);
    const noteLine = fake.details(token, noteId)[0];
    const refused = await postReturn(returnBody(noteId, 'credit-2', [{ documentDetailId: noteLine.id, quantity: 1 }]));
    expect(refused.status).toBe(400);
  });
});
