import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { table, tableName } from '../../../shared/table/client.ts';
import { keys } from '../../../shared/table/keys.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { useLocalStack } from '../../support/stack.ts';
import { connectSandbox } from './support.ts';

/** decisions 14: issue options list shipping types; issue settings take the guide's type and three shipping types. */
const stack = useLocalStack();
const base = { officeId: '1', vatTaxId: '1', documentTypeIds: { receipt: '3', invoice: '1', creditNote: '5' } };
// The sandbox's ids: document type 7 is codeSii 52; shipping type ids equal their codeSii.
const guides = { documentTypeIds: { ...base.documentTypeIds, dispatchGuide: '7' }, shippingTypeIds: { sale: '1', internalTransfer: '5', otherTransfer: '6' } };

describe('dispatch guide settings (sandbox)', () => {
  let tenant: TestTenant;
  let admin: TestMember;
  beforeAll(async () => {
    tenant = await TestTenant.create(stack());
    admin = await tenant.member('admin');
  });
  const put = (id: string, body: Record<string, unknown>) => tenant.call(admin, 'PUT', `/v1/integrations/connections/${id}/issue-settings`, { body });

  it('lists the provider’s active shipping types, lowest ids first, with their codeSii', async () => {
    const { connection } = await connectSandbox(tenant, admin);
    const options = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/issue-options`);
    expect(options.status, options.text).toBe(200);
    expect(options.body.shippingTypes.map((t: { id: string }) => t.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(options.body.shippingTypes.slice(0, 1)).toEqual([{ id: '1', name: 'Operación constituye venta', codeSii: '1' }]);
    expect(options.body.shippingTypes).toContainEqual({ id: '5', name: 'Traslados internos', codeSii: '5' });
    expect(options.body.shippingTypes).toContainEqual({ id: '6', name: 'Otros traslados no venta', codeSii: '6' });
    expect(options.body.documentTypes).toContainEqual({ id: '7', name: 'GUÍA DE DESPACHO ELECTRÓNICA', codeSii: '52' });
  });

  it('saves the guide’s type and shipping types that fit, and answers null for both when they are left out', async () => {
    const { connection } = await connectSandbox(tenant, admin);
    const saved = await put(connection.id, { version: 1, ...base, ...guides });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.issueSettings).toEqual({ ...base, ...guides, dispatchStock: false });
    const options = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/issue-options`);
    expect(options.body.current).toEqual(saved.body.issueSettings);
    // A PUT replaces the settings: without them there are no guide settings (null), invoices still issue.
    const without = await put(connection.id, { version: 2, ...base });
    expect(without.status, without.text).toBe(200);
    expect(without.body.issueSettings).toEqual({ ...base, documentTypeIds: { ...base.documentTypeIds, dispatchGuide: null }, dispatchStock: false, shippingTypeIds: null });
    const explicitNull = await put(connection.id, { version: 3, ...base, documentTypeIds: { ...base.documentTypeIds, dispatchGuide: null }, shippingTypeIds: null });
    expect(explicitNull.body.issueSettings).toEqual(without.body.issueSettings);
  });

  it('refuses a guide type or shipping type of the wrong codeSii, or not offered, with 422 naming each field', async () => {
    const { connection } = await connectSandbox(tenant, admin);
    const wrong = await put(connection.id, {
      version: 1,
      ...base,
      documentTypeIds: { ...base.documentTypeIds, dispatchGuide: '1' },
      shippingTypeIds: { sale: '5', internalTransfer: '5', otherTransfer: '99' },
    });
    expect([wrong.status, wrong.body.code]).toEqual([422, 'invalid_issue_settings']);
    expect(wrong.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['body.documentTypeIds.dispatchGuide', 'body.shippingTypeIds.otherTransfer', 'body.shippingTypeIds.sale']);
    expect(wrong.body.errors.find((e: { path: string }) => e.path === 'body.shippingTypeIds.sale').message).toMatch(/codeSii 1/);
    // The shape is checked first (400 validation_failed): all three shipping types or none, as decimal ids.
    const partial = await put(connection.id, { version: 1, ...base, shippingTypeIds: { sale: '1' } });
    expect([partial.status, partial.body.code]).toEqual([400, 'validation_failed']);
    expect(partial.body.errors.map((e: { path: string }) => e.path)).toContain('body.shippingTypeIds.internalTransfer');
    expect((await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}`)).body).toMatchObject({ version: 1, issueSettings: null });
  });

  it('reads settings stored before dispatch guides existed with both as null, and takes old-style bodies as before', async () => {
    const { connection } = await connectSandbox(tenant, admin);
    expect((await put(connection.id, { version: 1, ...base, ...guides })).status).toBe(200);
    // As a connection saved by the earlier code would be stored: no dispatchGuide, no shippingTypeIds.
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.providerConnection(tenant.id, connection.id),
        UpdateExpression: 'REMOVE issueSettings.shippingTypeIds, issueSettings.documentTypeIds.dispatchGuide',
      }),
    );
    const old = { ...base, documentTypeIds: { ...base.documentTypeIds, dispatchGuide: null }, dispatchStock: false, shippingTypeIds: null };
    const read = await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}`);
    expect(read.body.issueSettings).toEqual(old);
    const listed = await tenant.call(admin, 'GET', '/v1/integrations/connections?limit=100');
    expect(listed.body.items.find((c: { id: string }) => c.id === connection.id).issueSettings).toEqual(old);
    expect((await tenant.call(admin, 'GET', `/v1/integrations/connections/${connection.id}/issue-options`)).body.current).toEqual(old);
    const resaved = await put(connection.id, { version: 2, ...base, dispatchStock: true });
    expect(resaved.status, resaved.text).toBe(200);
    expect(resaved.body.issueSettings).toEqual({ ...old, dispatchStock: true });
  });
});
