import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dynamoEndpoint } from '../../support/dynamo-endpoint.ts';
import { ensureTable } from '../../../infra/local/create-table.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { resetTableClient } from '../../../shared/table/client.ts';
import { ProviderRefusedError, ProviderUnavailableError } from '../../../shared/ports/billing-provider/errors.ts';
import type { IssueDocumentInput, ProviderSession } from '../../../shared/ports/billing-provider/port.ts';
import { sandboxCode, SandboxProvider } from '../../../shared/ports/billing-provider/sandbox.ts';

const DAY = Math.floor(Date.UTC(2026, 10, 23) / 1000);
/** A connection's session: the sandbox keeps documents under its tenant and connection. */
const connect = async (sandbox: SandboxProvider, clientCode: string, owner = { tenantId: randomUUID(), connectionId: randomUUID() }): Promise<ProviderSession> => ({
  accessToken: (await sandbox.exchangeCode(sandboxCode(clientCode))).accessToken,
  owner,
});

/** The test's own calls, as `npm run admin`-style fixtures are: counted, checked against no role. */
const asOperator = (test: () => Promise<void>) => () => runAs(OPERATOR, test);

// Documents live in the table (a table of this file's own in the run's DynamoDB Local).
beforeAll(async () => {
  const name = `sandbox-${randomUUID()}`;
  await ensureTable(dynamoEndpoint(), name);
  Object.assign(process.env, { DYNAMODB_ENDPOINT: dynamoEndpoint(), TABLE_NAME: name });
  resetTableClient();
});
const doc = (salesId: string): IssueDocumentInput => ({ documentTypeId: '3', officeId: '1', emissionDate: DAY, salesId, details: [{ comment: 'Flete', quantity: 2, netUnitValue: 1500, taxId: '1' }] });

afterEach(() => {
  delete process.env.SANDBOX_PROVIDER_DATA_DIR;
});

describe('sandbox-v1', () => {
  it('serves the same company for the same clientCode and another for another', asOperator(async () => {
    const sandbox = new SandboxProvider();
    const a1 = await sandbox.listVariants(await connect(sandbox, '76086428-5'));
    const a2 = await new SandboxProvider().listVariants(await connect(new SandboxProvider(), '76086428-5'));
    const b = await sandbox.listVariants(await connect(sandbox, '96790240-3'));
    expect(a1).toEqual(a2);
    expect(a1.items.map((v) => v.description)).not.toEqual(b.items.map((v) => v.description));
    expect(a1.count).toBeGreaterThan(200);
    expect(a1.nextOffset).toBe(50);
    expect((await sandbox.listStocks(await connect(sandbox, '76086428-5'))).count).toBe(a1.count! * 3);
    expect((await sandbox.listClients(await connect(sandbox, '76086428-5'))).items.some((c) => c.code === null)).toBe(true);
  }));

  it('refuses codes and tokens it did not hand out', asOperator(async () => {
    const sandbox = new SandboxProvider();
    await expect(sandbox.exchangeCode('sbx.76086428-5.nothex')).rejects.toBeInstanceOf(ProviderRefusedError);
    await expect(sandbox.listOffices({ accessToken: 'sandbox.1-9.00' })).rejects.toBeInstanceOf(ProviderRefusedError);
  }));

  it('reads SANDBOX_PROVIDER_DATA_DIR/<clientCode>.json afresh at every call', asOperator(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-data-'));
    try {
      process.env.SANDBOX_PROVIDER_DATA_DIR = dir;
      const sandbox = new SandboxProvider();
      const session = await connect(sandbox, '76086428-5');
      const file = join(dir, '76086428-5.json');
      writeFileSync(file, JSON.stringify({ offices: [{ id: 7, name: 'Única', state: 0 }], variants: [{ id: 9, description: 'Harina', code: 'H-1', barCode: '', state: 0, product: { id: '3' }, version: '4' }] }));
      expect((await sandbox.listOffices(session)).items).toEqual([{ id: '7', name: 'Única', active: true }]);
      expect((await sandbox.listVariants(session)).items[0]).toMatchObject({ id: '9', barCode: null, productId: '3', version: '4' });
      writeFileSync(file, JSON.stringify({ offices: [{ id: 8, name: 'Otra', state: 0 }] }));
      expect((await sandbox.listOffices(session)).items.map((o) => o.id)).toEqual(['8']);
      // Another company without a file keeps the generated data.
      expect((await sandbox.listOffices(await connect(sandbox, '96790240-3'))).count).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }));

  it('records one document per salesId and type, and finds it by salesId without creating', asOperator(async () => {
    const sandbox = new SandboxProvider();
    const session = await connect(sandbox, '76086428-5');
    const made = await sandbox.issueDocument(session, doc('s-1'));
    expect(made.created).toBe(true);
    expect(made.value).toMatchObject({ netAmount: 3000, taxAmount: 570, totalAmount: 3570, informedSii: 0 });
    expect(await sandbox.issueDocument(session, doc('s-1'))).toEqual({ created: false, value: made.value });
    expect(await sandbox.findDocumentsBySalesId(session, { salesId: 's-1', documentTypeId: '3', emissionDateFrom: DAY, emissionDateTo: DAY })).toEqual([made.value]);
    expect(await sandbox.findDocumentsBySalesId(session, { salesId: 's-2', documentTypeId: '3', emissionDateFrom: DAY, emissionDateTo: DAY })).toEqual([]);
    expect((await sandbox.recorded(session.owner!)).documents).toHaveLength(1);
  }));

  it('keeps documents in the table: another function’s sandbox meets the first document, another connection sees none', asOperator(async () => {
    const session = await connect(new SandboxProvider(), '76086428-5');
    const made = await new SandboxProvider().issueDocument(session, doc('t-1'));
    // The reconciler runs in another Lambda: its own sandbox finds the document and a re-issue makes no second one.
    const elsewhere = new SandboxProvider();
    expect(await elsewhere.findDocumentsBySalesId(session, { salesId: 't-1', documentTypeId: '3', emissionDateFrom: DAY, emissionDateTo: DAY })).toEqual([made.value]);
    expect(await elsewhere.issueDocument(session, doc('t-1'))).toEqual({ created: false, value: made.value });
    expect(await elsewhere.getDocument(session, made.value.id)).toEqual(made.value);
    // Ten issues at once with one salesId: one document.
    const racing = await Promise.all(Array.from({ length: 10 }, () => new SandboxProvider().issueDocument(session, doc('t-2'))));
    expect(racing.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(racing.map((r) => r.value.id)).size).toBe(1);
    expect((await elsewhere.recorded(session.owner!)).documents.map((d) => d.salesId)).toEqual(['t-1', 't-2']);
    // The same company connected by another tenant is another set of documents.
    const other = await connect(elsewhere, '76086428-5');
    expect(await elsewhere.getDocument(other, made.value.id)).toBeUndefined();
    expect(await elsewhere.findDocumentsBySalesId(other, { salesId: 't-1', documentTypeId: '3', emissionDateFrom: DAY, emissionDateTo: DAY })).toEqual([]);
    await expect(elsewhere.getDocument({ accessToken: session.accessToken }, made.value.id)).rejects.toThrow(/names no tenant and connection/);
  }));

  it('injects faults: error before applying, timeout after applying, a refusal and a slow answer', asOperator(async () => {
    const sandbox = new SandboxProvider();
    const session = await connect(sandbox, '76086428-5');
    sandbox.faults.add({ operation: 'issueDocument', kind: 'error_before_apply', times: 1 });
    await expect(sandbox.issueDocument(session, doc('f-1'))).rejects.toMatchObject({ reason: 'server_error' });
    expect((await sandbox.recorded(session.owner!)).documents).toHaveLength(0);

    sandbox.faults.add({ operation: 'issueDocument', kind: 'timeout_after_apply', times: 1 });
    const error = await sandbox.issueDocument(session, doc('f-1')).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect((await sandbox.recorded(session.owner!)).documents.map((d) => d.salesId)).toEqual(['f-1']);
    expect((await sandbox.issueDocument(session, doc('f-1'))).created).toBe(false);

    sandbox.faults.add({ operation: 'createReturn', kind: 'refuse', times: 1 });
    await expect(sandbox.createReturn(session, { documentTypeId: '5', officeId: '1', referenceDocumentId: '1', emissionDate: DAY, motive: 'x', salesId: 'r', details: [] })).rejects.toBeInstanceOf(
      ProviderRefusedError,
    );

    sandbox.faults.add({ operation: 'list', kind: 'slow', delayMs: 150, times: 1 });
    let settled = false;
    const slow = sandbox.listOffices(session).then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    await slow;
    expect(settled).toBe(true);
    sandbox.faults.clear();
  }));

  it('credits through returns once per salesId and never beyond what remains of a line', asOperator(async () => {
    const sandbox = new SandboxProvider();
    const session = await connect(sandbox, '76086428-5');
    const made = (await sandbox.issueDocument(session, doc('c-1'))).value;
    const [line] = await sandbox.getDocumentDetails(session, made.id);
    const input = { documentTypeId: '5', officeId: '1', referenceDocumentId: made.id, emissionDate: DAY, motive: 'Devolución', salesId: 'n-1', details: [{ documentDetailId: line!.id, quantity: 1 }] };
    const first = await sandbox.createReturn(session, input);
    expect(first.created).toBe(true);
    expect((await sandbox.getDocument(session, first.value.creditNoteId!))?.documentTypeId).toBe('5');
    expect(await sandbox.createReturn(session, input)).toEqual({ created: false, value: first.value });
    await expect(sandbox.createReturn(session, { ...input, salesId: 'n-2', details: [{ documentDetailId: line!.id, quantity: 2 }] })).rejects.toBeInstanceOf(ProviderRefusedError);
    expect((await sandbox.createReturn(session, { ...input, salesId: 'n-3' })).created).toBe(true);
    expect((await sandbox.recorded(session.owner!)).returns).toHaveLength(2);
  }));
});
