import { expect } from 'vitest';
import type { TestMember, TestTenant } from '../../support/api.ts';
import { connectSandbox } from '../integrations/support.ts';
import { allRecords, runImport, sandboxDataDir, variant } from '../records/support.ts';

export const ORDERS = '/v1/distribution/orders';

/** The sandbox's data folder for these tests: a few variants and two clients per company. */
export const goodsData = sandboxDataDir();

const client = (id: number, name: string, code: string) => ({ id, firstName: '', lastName: '', company: name, code, email: '', phone: '', state: 0, contacts: [] });

/**
 * A sandbox connection whose variants and parties came through a real import (issue 10), as a
 * distributor's would: the records' ids are those the API pages out.
 */
export const connectionWithRecords = async (tenant: TestTenant, admin: TestMember, clientCode: string) => {
  goodsData.write(clientCode, {
    variants: [variant(11, { description: 'Harina 25 kg' }), variant(12, { description: 'Aceite 1 L' })],
    stocks: [],
    clients: [client(501, 'Almacén Don Pepe', '76.086.428-5'), client(502, 'Minimarket La Esquina', '96.790.240-3')],
  });
  const { connection } = await connectSandbox(tenant, admin, clientCode);
  const done = await runImport(tenant, admin, connection.id, { streams: ['variants', 'parties'] });
  expect(done.state, JSON.stringify(done)).toBe('succeeded');
  const variants = (await allRecords(tenant, admin, connection.id, 'variants')).items;
  const parties = (await allRecords(tenant, admin, connection.id, 'parties')).items;
  const byExternal = (items: { id: string; externalId: string }[], externalId: string) => items.find((r) => r.externalId === externalId)!.id;
  return {
    connection: connection as { id: string; version: number },
    variants: { flour: byExternal(variants, '11'), oil: byExternal(variants, '12') },
    parties: { pepe: byExternal(parties, '501'), esquina: byExternal(parties, '502') },
  };
};

export const goodsOrder = (reference: string, over: Record<string, unknown> = {}) => ({
  reference,
  recipient: { name: 'Pedro Fuentes' },
  address: { text: 'San Pablo 3456', latitude: -33.44, longitude: -70.68, municipality: 'Quinta Normal', city: 'Santiago' },
  serviceDate: '2026-11-23',
  ...over,
});
