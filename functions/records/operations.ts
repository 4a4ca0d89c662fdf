import * as v from 'valibot';
import { defineOperation, definePublicOperation } from '../../shared/http/operation.ts';
import { IdParams, PageQuery } from '../../shared/http/schemas.ts';
import { importQueue } from '../../shared/ports/import-queue.ts';
import { activeConnection, getConnectionRecord } from '../integrations/connection-record.ts';
import {
  ConflictPage,
  Import,
  ImportBody,
  ImportPage,
  ImportParams,
  PartyPage,
  RecordQuery,
  StockLevelPage,
  VariantPage,
  type ImportStream,
} from './api-schemas.ts';
import { listConflicts } from './conflict-store.ts';
import { getImportRecord, listImportRecords, newImport, toImport } from './imports/import-record.ts';
import { countNotice, Notice, recordNotice } from './notices.ts';
import { listRecords, toApiRecord } from './record-store.ts';

const tag = 'Integrations';
const connectionPath = '/v1/integrations/connections/{id}';

export const startImportOperation = defineOperation({
  operationId: 'startImport',
  method: 'POST',
  path: `${connectionPath}/imports`,
  summary: 'Import variants, stock levels and parties from the provider (runs in the background)',
  tag,
  permission: 'integrations.import',
  idempotent: true,
  params: IdParams,
  body: ImportBody,
  responses: {
    202: { description: 'The queued import; read it back until its state is succeeded or failed', schema: Import },
    409: { description: '`import_running` (one import per connection at a time) or `connection_revoked`' },
  },
  handle: async ({ params, body, caller }) => {
    const connection = await activeConnection(caller.tenantId, params.id);
    const { record, writes } = newImport(connection, body.streams, caller.now);
    return {
      status: 202,
      body: toImport(record),
      headers: { location: `/v1/integrations/connections/${record.connectionId}/imports/${record.id}` },
      writes,
      resourceId: record.id,
      // Lost only if the process dies right here: the hourly schedule resumes idle imports.
      afterCommit: () => importQueue().send({ tenantId: record.tenantId, connectionId: record.connectionId, importId: record.id, step: 0 }),
    };
  },
});

export const getImportOperation = defineOperation({
  operationId: 'getImport',
  method: 'GET',
  path: `${connectionPath}/imports/{importId}`,
  summary: 'Read an import: its state and counts so far',
  tag,
  permission: 'integrations.read',
  params: ImportParams,
  responses: { 200: { description: 'The import', schema: Import } },
  handle: async ({ params, caller }) => ({ status: 200, body: toImport(await getImportRecord(caller.tenantId, params.id, params.importId)) }),
});

export const listImportsOperation = defineOperation({
  operationId: 'listImports',
  method: 'GET',
  path: `${connectionPath}/imports`,
  summary: 'List a connection’s imports, oldest first',
  tag,
  permission: 'integrations.read',
  params: IdParams,
  query: PageQuery,
  responses: { 200: { description: 'A page of imports', schema: ImportPage } },
  handle: async ({ params, query, caller }) => {
    await getConnectionRecord(caller.tenantId, params.id);
    const page = await listImportRecords(caller.tenantId, params.id, query.after, query.limit);
    return { status: 200, body: { items: page.items.map(toImport), nextCursor: page.nextCursor } };
  },
});

/** The three record reads differ only in their stream and page shape. */
const recordsOperation = (operationId: string, segment: string, stream: ImportStream, schema: typeof VariantPage | typeof StockLevelPage | typeof PartyPage, what: string) =>
  defineOperation({
    operationId,
    method: 'GET',
    path: `${connectionPath}/${segment}`,
    summary: `List the connection’s ${what} records, by id`,
    tag,
    permission: 'integrations.read',
    params: IdParams,
    query: RecordQuery,
    responses: { 200: { description: `A page of ${what} records (at most 100); externalId filters them`, schema } },
    handle: async ({ params, query, caller }) => {
      // Revoked connections stay readable (decisions 10); another tenant's id is a 404.
      await getConnectionRecord(caller.tenantId, params.id);
      const page = await listRecords({ tenantId: caller.tenantId, connectionId: params.id, stream }, query);
      return { status: 200, body: { items: page.items.map(toApiRecord), nextCursor: page.nextCursor } };
    },
  });

export const listVariantsOperation = recordsOperation('listVariantRecords', 'variants', 'variants', VariantPage, 'product variant');
export const listStockLevelsOperation = recordsOperation('listStockLevelRecords', 'stock-levels', 'stock_levels', StockLevelPage, 'stock level');
export const listPartiesOperation = recordsOperation('listPartyRecords', 'parties', 'parties', PartyPage, 'party');

export const listConflictsOperation = defineOperation({
  operationId: 'listRecordConflicts',
  method: 'GET',
  path: `${connectionPath}/conflicts`,
  summary: 'List the version conflicts met by imports and notices, oldest first',
  tag,
  permission: 'integrations.read',
  params: IdParams,
  query: RecordQuery,
  responses: { 200: { description: 'A page of conflicts (at most 100, of the last 90 days); externalId filters them. A page reads at most 200 conflicts: it may hold fewer than limit, even none, with a nextCursor to go on from', schema: ConflictPage } },
  handle: async ({ params, query, caller }) => {
    await getConnectionRecord(caller.tenantId, params.id);
    return { status: 200, body: await listConflicts(caller.tenantId, params.id, query, caller.now) };
  },
});

export const providerNoticeOperation = definePublicOperation({
  operationId: 'receiveProviderNotice',
  method: 'POST',
  path: '/v1/integrations/provider/notifications',
  summary: 'The billing provider’s notices (unsigned hints): recorded at once; the named resource is read again later and judged',
  tag,
  // Any JSON is taken: a notice of another shape, or of a company without a connection, is ignored.
  body: v.pipe(v.unknown(), v.description(`A provider notice: ${Object.keys(Notice.entries).join(', ')}`)),
  responses: {
    202: { description: 'Taken; whatever the notice named is read again from the provider shortly, within the company’s budget of provider reads (nothing happens for an unknown company or a malformed notice)' },
    429: { description: '`rate_limited`: too many notices from this viewer address this minute' },
  },
  // No provider call and no wait here: the notice is recorded and the import worker reads it.
  handle: async ({ body, now, sourceIp, requestId }) => {
    await countNotice(sourceIp, now);
    await recordNotice(body, now, requestId, sourceIp);
    return { status: 202 };
  },
});

export const recordOperations = [
  providerNoticeOperation,
  startImportOperation,
  getImportOperation,
  listImportsOperation,
  listVariantsOperation,
  listStockLevelsOperation,
  listPartiesOperation,
  listConflictsOperation,
];
