import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../../infra/local/create-table.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { resetTableClient } from '../../../shared/table/client.ts';
import { ProviderRefusedError, ProviderUnavailableError } from '../../../shared/ports/billing-provider/errors.ts';
import type { CreateShippingInput, ProviderSession } from '../../../shared/ports/billing-provider/port.ts';
import { sandboxCode, SandboxProvider } from '../../../shared/ports/billing-provider/sandbox.ts';

const DAY = Math.floor(Date.UTC(2026, 10, 23) / 1000);
const connect = async (sandbox: SandboxProvider, clientCode = '76086428-5'): Promise<ProviderSession> => ({
  accessToken: (await sandbox.exchangeCode(sandboxCode(clientCode))).accessToken,
  owner: { tenantId: randomUUID(), connectionId: randomUUID() },
});
const asOperator = (test: () => Promise<void>) => () => runAs(OPERATOR, test);

beforeAll(async () => {
  const name = `sandbox-shippings-${randomUUID()}`;
  await ensureTable(inject('dynamoEndpoint'), name);
  Object.assign(process.env, { DYNAMODB_ENDPOINT: inject('dynamoEndpoint'), TABLE_NAME: name });
  resetTableClient();
});

const GUIDE_TYPE = '7'; // the sandbox's codeSii 52 type
const shipping = (salesId: string, over: Partial<CreateShippingInput> = {}): CreateShippingInput => ({
  documentTypeId: GUIDE_TYPE,
  officeId: '1',
  emissionDate: DAY,
  shippingTypeId: '5',
  destinationOfficeId: '2', // an internal transfer names its receiving office
  salesId,
  address: 'Camino a Melipilla 9000',
  municipality: '',
  city: '',
  recipient: 'Bodega Sur',
  details: [{ comment: 'Pallet de harina', quantity: 4, netUnitValue: 0 }],
  ...over,
});

describe('sandbox-v1 dispatch guides', () => {
  it('lists the provider’s shipping types and a dispatch guide document type', asOperator(async () => {
    const sandbox = new SandboxProvider();
    const session = await connect(sandbox);
    const types = (await sandbox.listShippingTypes(session, { activeOnly: true })).items;
    expect(types.filter((t) => ['1', '5', '6'].includes(t.codeSii!)).map((t) => [t.codeSii, t.name])).toEqual([
      ['1', 'Operación constituye venta'],
      ['5', 'Traslados internos'],
      ['6', 'Otros traslados no venta'],
    ]);
    expect((await sandbox.listDocumentTypes(session)).items.find((t) => t.codeSii === '52')).toMatchObject({ id: GUIDE_TYPE, isElectronic: true, active: true });
  }));

  it('keeps one shipping per salesId; its guide is a type 52 document with a folio, found like any document', asOperator(async () => {
    const sandbox = new SandboxProvider();
    const session = await connect(sandbox);
    const made = await sandbox.createShipping(session, shipping('g-1'));
    expect(made).toMatchObject({ created: true, value: { shippingTypeId: '5', officeId: '1' } });
    const guide = await sandbox.getDocument(session, made.value.guideId!);
    expect(guide).toMatchObject({ salesId: 'g-1', documentTypeId: GUIDE_TYPE, number: '1', informedSii: 0, totalAmount: 0, emissionDate: DAY });
    expect(await sandbox.findDocumentsBySalesId(session, { salesId: 'g-1', documentTypeId: GUIDE_TYPE, emissionDateFrom: DAY, emissionDateTo: DAY })).toEqual([guide]);
    expect(await new SandboxProvider().createShipping(session, shipping('g-1'))).toEqual({ created: false, value: made.value });
    expect((await sandbox.createShipping(session, shipping('g-2'))).created).toBe(true);
    expect((await sandbox.getDocument(session, (await sandbox.createShipping(session, shipping('g-2'))).value.guideId!))?.number).toBe('2');
    // Ten at once with one salesId: one shipping, one guide.
    const racing = await Promise.all(Array.from({ length: 10 }, () => new SandboxProvider().createShipping(session, shipping('g-3'))));
    expect(racing.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(racing.map((r) => r.value.id)).size).toBe(1);
    const recorded = await sandbox.recorded(session.owner!);
    expect(recorded.shippings).toHaveLength(3);
    expect(recorded.documents.map((d) => d.salesId)).toEqual(['g-1', 'g-2', 'g-3']);
    // The look-up invoicing relies on: the day's shippings of the office and type, with their guide and lines.
    const listed = await sandbox.listShippings(session, { shippingDate: DAY, officeId: '1', shippingTypeId: '5' });
    expect(listed.items.map((s) => s.guide?.salesId)).toEqual(['g-1', 'g-2', 'g-3']);
    expect(listed.items[0]).toMatchObject({ address: 'Camino a Melipilla 9000', recipient: 'Bodega Sur', municipality: null, details: { items: [{ quantity: 4, variantId: null, note: 'Pallet de harina' }], count: 1, offset: 0, invalid: [] } });
    expect(await sandbox.listShippingDetails(session, listed.items[0]!.id)).toEqual({ items: [{ quantity: 4, variantId: null, note: 'Pallet de harina' }], count: 1, nextOffset: null });
    expect((await sandbox.listShippings(session, { shippingDate: DAY, officeId: '1', shippingTypeId: '6' })).items).toEqual([]);
    await expect(sandbox.createShipping(session, shipping('g-4', { destinationOfficeId: null }))).rejects.toBeInstanceOf(ProviderRefusedError);
  }));

  it('refuses a type that is not a guide, an unknown shipping type or office, no address or no details', asOperator(async () => {
    const sandbox = new SandboxProvider();
    const session = await connect(sandbox);
    for (const bad of [{ documentTypeId: '1' }, { shippingTypeId: '99' }, { officeId: '4' }, { address: ' ' }, { details: [] }]) {
      await expect(sandbox.createShipping(session, shipping('bad', bad)), JSON.stringify(bad)).rejects.toBeInstanceOf(ProviderRefusedError);
    }
    expect((await sandbox.recorded(session.owner!)).shippings).toEqual([]);
  }));

  it('injects faults on createShipping: a timeout after applying leaves the guide to be found', asOperator(async () => {
    const sandbox = new SandboxProvider();
    const session = await connect(sandbox);
    sandbox.faults.add({ operation: 'createShipping', kind: 'error_before_apply', times: 1 });
    await expect(sandbox.createShipping(session, shipping('f-1'))).rejects.toBeInstanceOf(ProviderUnavailableError);
    expect((await sandbox.recorded(session.owner!)).shippings).toEqual([]);
    sandbox.faults.add({ operation: 'createShipping', kind: 'timeout_after_apply', times: 1 });
    await expect(sandbox.createShipping(session, shipping('f-1'))).rejects.toMatchObject({ reason: 'timeout' });
    expect(await sandbox.findDocumentsBySalesId(session, { salesId: 'f-1', documentTypeId: GUIDE_TYPE, emissionDateFrom: DAY, emissionDateTo: DAY })).toHaveLength(1);
    expect((await sandbox.createShipping(session, shipping('f-1'))).created).toBe(false);
  }));

  it('keeps an invoice’s references, and serves the standard shipping types to a data file without its own', asOperator(async () => {
    const sandbox = new SandboxProvider();
    const session = await connect(sandbox);
    const references = [{ number: '12', referenceDate: DAY, dteCodeSii: 52, reason: '' }];
    const invoice = await sandbox.issueDocument(session, { documentTypeId: '1', officeId: '1', emissionDate: DAY, salesId: 'i-1', details: [{ comment: 'Harina', quantity: 1, netUnitValue: 100 }], references });
    expect(await sandbox.references(session.owner!, invoice.value.id)).toEqual(references);
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-data-'));
    try {
      process.env.SANDBOX_PROVIDER_DATA_DIR = dir;
      writeFileSync(join(dir, '76086428-5.json'), JSON.stringify({ offices: [{ id: 1, name: 'Única', state: 0 }] }));
      expect((await sandbox.listShippingTypes(session)).count).toBe(9);
      writeFileSync(join(dir, '76086428-5.json'), JSON.stringify({ shippingTypes: [{ id: 11, name: 'Venta', codeSii: 1, useDestinationOffice: 0, state: 0 }] }));
      expect((await sandbox.listShippingTypes(session)).items).toEqual([{ id: '11', name: 'Venta', codeSii: '1', useDestinationOffice: false, active: true }]);
    } finally {
      delete process.env.SANDBOX_PROVIDER_DATA_DIR;
      rmSync(dir, { recursive: true, force: true });
    }
  }));
});
