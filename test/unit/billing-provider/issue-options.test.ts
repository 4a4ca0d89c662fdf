import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealToken, type ConnectionRecord } from '../../../functions/integrations/connection-record.ts';
import { readIssueOptions, settingsIssues } from '../../../functions/integrations/issue-options.ts';
import { newId } from '../../../shared/ids.ts';
import { sandboxCode, SandboxProvider } from '../../../shared/ports/billing-provider/sandbox.ts';
import { LocalKeyService } from '../../../shared/ports/key-service.ts';
import { resetPorts, setPorts } from '../../../shared/ports/registry.ts';

const dir = mkdtempSync(join(tmpdir(), 'options-'));
const sandbox = new SandboxProvider();
let record: ConnectionRecord;

beforeAll(async () => {
  // Only the key service is used here; the registry wants every port installed.
  setPorts({ keys: new LocalKeyService({ keyFile: join(dir, 'master.key') }), queue: { send: async () => {} }, scheduler: { scheduleAt: async () => {} } });
  const tenantId = newId();
  const id = newId();
  const { accessToken } = await sandbox.exchangeCode(sandboxCode('76086428-5'));
  const at = new Date().toISOString();
  record = {
    id, tenantId, authorizationId: newId(), origin: 'sandbox-v1', clientCode: '76086428-5', name: 'x', state: 'active',
    issueSettings: null, version: 1, createdAt: at, updatedAt: at, sealedToken: await sealToken(tenantId, id, accessToken),
  };
});
afterAll(() => {
  resetPorts();
  rmSync(dir, { recursive: true, force: true });
});

describe('issue options', () => {
  it('ends as unknown (503) once the overall deadline has passed, without answering partial lists', async () => {
    const error = await readIssueOptions(record, sandbox, AbortSignal.abort()).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503, code: 'provider_unavailable' });
    expect((await readIssueOptions(record, sandbox)).offices).toHaveLength(3);
  });

  it('checks every id against the live options and each kind against its codeSii', async () => {
    const options = await readIssueOptions(record, sandbox);
    const ok = { officeId: '1', vatTaxId: '1', documentTypeIds: { receipt: '4', invoice: '2', creditNote: '5' } };
    expect(settingsIssues(options, ok)).toEqual([]);
    const paths = (body: typeof ok) => settingsIssues(options, body).map((i) => i.path);
    expect(paths({ ...ok, documentTypeIds: { receipt: '1', invoice: '3', creditNote: '1' } })).toEqual([
      'body.documentTypeIds.receipt',
      'body.documentTypeIds.invoice',
      'body.documentTypeIds.creditNote',
    ]);
    expect(paths({ ...ok, documentTypeIds: { ...ok.documentTypeIds, receipt: '6' } })).toEqual(['body.documentTypeIds.receipt']); // no codeSii
    expect(paths({ ...ok, officeId: '4', vatTaxId: '3' })).toEqual(['body.officeId', 'body.vatTaxId']); // closed office, unknown tax
  });

  it('checks the dispatch guide’s type (codeSii 52) and the shipping types (codeSii 1, 5, 6) only when given', async () => {
    const options = await readIssueOptions(record, sandbox);
    expect(options.shippingTypes.filter((t) => ['1', '5', '6'].includes(t.codeSii!)).map((t) => t.id)).toEqual(['1', '5', '6']);
    const ok = { officeId: '1', vatTaxId: '1', documentTypeIds: { receipt: '4', invoice: '2', creditNote: '5', dispatchGuide: '7' }, shippingTypeIds: { sale: '1', internalTransfer: '5', otherTransfer: '6' } };
    expect(settingsIssues(options, ok)).toEqual([]);
    expect(settingsIssues(options, { ...ok, documentTypeIds: { ...ok.documentTypeIds, dispatchGuide: null }, shippingTypeIds: null })).toEqual([]);
    const issues = settingsIssues(options, { ...ok, documentTypeIds: { ...ok.documentTypeIds, dispatchGuide: '1' }, shippingTypeIds: { sale: '2', internalTransfer: '6', otherTransfer: '60' } });
    expect(issues.map((i) => i.path)).toEqual(['body.documentTypeIds.dispatchGuide', 'body.shippingTypeIds.sale', 'body.shippingTypeIds.internalTransfer', 'body.shippingTypeIds.otherTransfer']);
    expect(issues[0]!.message).toMatch(/codeSii 52, this one has 33/);
    expect(issues[3]!.message).toMatch(/not an active shipping type/);
  });
});
