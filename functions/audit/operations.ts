import { defineOperation } from '../../shared/http/operation.ts';
import { listAuditEntries } from './entries.ts';
import { AuditPage, AuditQuery } from './schemas.ts';

export const listAuditEntriesOperation = defineOperation({
  operationId: 'listAuditEntries',
  method: 'GET',
  path: '/v1/audit',
  summary: 'List audit entries',
  tag: 'Audit',
  permission: 'audit.read',
  query: AuditQuery,
  responses: { 200: { description: 'A page of audit entries, newest first, filtered by resource, actor or action', schema: AuditPage } },
  handle: async ({ query, caller }) => ({ status: 200, body: await listAuditEntries(caller.tenantId, query, caller.now) }),
});

export const auditOperations = [listAuditEntriesOperation];
