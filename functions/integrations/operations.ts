import * as v from 'valibot';
import { nowIso } from '../../shared/clock.ts';
import { defineOperation, definePublicOperation, type ResponseSpec } from '../../shared/http/operation.ts';
import { IdParams, PageQuery } from '../../shared/http/schemas.ts';
import type { ProviderOrigin } from '../../shared/ports/billing-provider/port.ts';
import { sandboxCode } from '../../shared/ports/billing-provider/sandbox.ts';
import { providerSettings } from '../../shared/ports/billing-provider/registry.ts';
import { completeAuthorization, createAuthorization, SANDBOX_CALLBACK_PATH } from './authorizations.ts';
import { activeConnection, checkVersion, getConnectionRecord, listConnectionRecords, saveConnection, toConnection } from './connection-record.ts';
import { releaseConnectionSlot } from './connection-limit.ts';
import { InvalidClientCodeError } from './errors.ts';
import { readIssueOptions, saveIssueSettings } from './issue-options.ts';
import { normaliseRut } from '../../shared/chile/rut.ts';
import { recordOperations } from '../records/operations.ts';
import {
  Authorization,
  AuthorizationBody,
  CompletionBody,
  Connection,
  ConnectionPage,
  IssueOptions,
  IssueSettingsBody,
  RevokeBody,
  SandboxAuthorizeQuery,
  SandboxCallbackQuery,
} from './schemas.ts';

const tag = 'Integrations';
const prefix = '/v1/integrations';
const connectionPath = (id: string) => `${prefix}/connections/${id}`;

/** The two authorization creates differ only in their provider (decisions 10). */
const authorizationOperation = (origin: ProviderOrigin, operationId: string, segment: string, summary: string, extra: Record<number, ResponseSpec> = {}) =>
  defineOperation({
    operationId,
    method: 'POST',
    path: `${prefix}/${segment}/authorizations`,
    summary,
    tag,
    permission: 'integrations.manage',
    idempotent: true,
    // The answer holds the binding secret: its idempotent copy is stored sealed.
    responseHasSecret: true,
    body: AuthorizationBody,
    responses: {
      201: { description: 'The authorization: open authorizeUrl, then complete with the code and the bindingSecret (shown this once)', schema: Authorization },
      ...extra,
    },
    handle: async ({ body, caller }) => {
      if (origin === 'provider-chile-v1') providerSettings(); // 503 provider_not_configured before anything else
      const { authorization, writes } = createAuthorization(caller.tenantId, origin, body, caller.now);
      return { status: 201, body: authorization, writes, resourceId: authorization.id };
    },
  });

export const createProviderAuthorizationOperation = authorizationOperation(
  'provider-chile-v1',
  'createProviderAuthorization',
  'provider',
  'Start connecting the billing provider (provider-chile-v1)',
  { 503: { description: '`provider_not_configured`: this deployment has no provider settings (the sandbox works without them)' } },
);

export const createSandboxAuthorizationOperation = authorizationOperation('sandbox-v1', 'createSandboxAuthorization', 'sandbox', 'Start connecting the sandbox provider (sandbox-v1)');

export const sandboxAuthorizePageOperation = definePublicOperation({
  operationId: 'approveSandboxAuthorization',
  method: 'GET',
  path: `${prefix}/sandbox/authorize`,
  summary: 'The sandbox’s consent screen: approves at once and redirects with a code',
  tag,
  query: SandboxAuthorizeQuery,
  responses: {
    302: { description: 'Approved: `Location` carries `code` in its query', headers: { location: { description: 'The callback with ?code=…' } } },
    422: { description: '`invalid_client_code`' },
  },
  handle: async ({ query }) => {
    const clientCode = normaliseRut(query.client_code);
    if (!clientCode) throw new InvalidClientCodeError();
    const base = (process.env.PUBLIC_BASE_URL ?? '').replace(/\/+$/, '');
    const location = `${base}${SANDBOX_CALLBACK_PATH}?${new URLSearchParams({ code: sandboxCode(clientCode) })}`;
    return { status: 302, headers: { location, 'cache-control': 'no-store' } };
  },
});

export const sandboxCallbackOperation = definePublicOperation({
  operationId: 'showSandboxCode',
  method: 'GET',
  path: `${prefix}/sandbox/callback`,
  summary: 'Where the sandbox’s consent screen sends the browser: shows the code to complete with',
  tag,
  query: SandboxCallbackQuery,
  responses: { 200: { description: 'The code, to send with the bindingSecret to POST /v1/integrations/connections', schema: v.object({ code: v.string(), next: v.string() }) } },
  handle: async ({ query }) => ({
    status: 200,
    body: { code: query.code, next: 'POST /v1/integrations/connections with {"code", "bindingSecret"}' },
    headers: { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  }),
});

export const createConnectionOperation = defineOperation({
  operationId: 'createConnection',
  method: 'POST',
  path: `${prefix}/connections`,
  summary: 'Complete an authorization into a connection',
  tag,
  permission: 'integrations.manage',
  idempotent: true,
  // Concurrent completions meet on the tenant's connection count: the chain runs the loser again
  // (the code already exchanged is not spent twice), so the count decides, never a 409.
  retryOnConflict: true,
  body: CompletionBody,
  responses: {
    201: { description: 'The connection', schema: Connection },
    409: { description: '`authorization_used`' },
    410: { description: '`authorization_expired`' },
    422: { description: '`authorization_not_found`, `authorization_refused`, `client_code_mismatch`, `connection_limit_reached` (20 active connections)' },
    503: { description: '`provider_unavailable` (the authorization stays open) or `provider_not_configured`' },
  },
  handle: async ({ body, caller }) => {
    const { record, writes } = await completeAuthorization(caller.tenantId, body, caller.now, caller.requestId);
    return { status: 201, body: toConnection(record), headers: { location: connectionPath(record.id) }, writes, resourceId: record.id };
  },
});

export const listConnectionsOperation = defineOperation({
  operationId: 'listConnections',
  method: 'GET',
  path: `${prefix}/connections`,
  summary: 'List billing provider connections',
  tag,
  permission: 'integrations.read',
  query: PageQuery,
  responses: { 200: { description: 'A page of connections, oldest first', schema: ConnectionPage } },
  handle: async ({ query, caller }) => {
    const page = await listConnectionRecords(caller.tenantId, query.after, query.limit);
    return { status: 200, body: { items: page.items.map(toConnection), nextCursor: page.nextCursor } };
  },
});

export const getConnectionOperation = defineOperation({
  operationId: 'getConnection',
  method: 'GET',
  path: `${prefix}/connections/{id}`,
  summary: 'Read a connection',
  tag,
  permission: 'integrations.read',
  params: IdParams,
  responses: { 200: { description: 'The connection', schema: Connection } },
  handle: async ({ params, caller }) => ({ status: 200, body: toConnection(await getConnectionRecord(caller.tenantId, params.id)) }),
});

export const revokeConnectionOperation = defineOperation({
  operationId: 'revokeConnection',
  method: 'POST',
  path: `${prefix}/connections/{id}/revoke`,
  summary: 'Revoke a connection: its token is deleted, its records stay readable',
  tag,
  permission: 'integrations.manage',
  params: IdParams,
  body: RevokeBody,
  responses: { 200: { description: 'The revoked connection', schema: Connection }, 409: { description: '`version_mismatch` or `connection_revoked`' } },
  handle: async ({ params, body, caller }) => {
    const current = await activeConnection(caller.tenantId, params.id);
    checkVersion(current, body.version);
    const record = { ...current, state: 'revoked' as const, sealedToken: null, version: current.version + 1, updatedAt: nowIso(caller.now) };
    return { status: 200, body: toConnection(record), writes: [saveConnection(record, body.version), ...(await releaseConnectionSlot(caller.tenantId))], resourceId: record.id };
  },
});

export const issueOptionsOperation = defineOperation({
  operationId: 'getIssueOptions',
  method: 'GET',
  path: `${prefix}/connections/{id}/issue-options`,
  summary: 'The offices, taxes, document types and shipping types to issue with, read live from the provider',
  tag,
  permission: 'integrations.read',
  params: IdParams,
  responses: {
    200: { description: 'The options (at most 200 each, lowest ids first) and the current settings', schema: IssueOptions },
    409: { description: '`connection_revoked`, or `connection_unauthorized` when the provider no longer accepts the token' },
    503: { description: '`provider_unavailable`' },
  },
  handle: async ({ params, caller }) => ({ status: 200, body: await readIssueOptions(await activeConnection(caller.tenantId, params.id)) }),
});

export const putIssueSettingsOperation = defineOperation({
  operationId: 'putIssueSettings',
  method: 'PUT',
  path: `${prefix}/connections/{id}/issue-settings`,
  summary: 'Set the office, VAT tax, document types and (for dispatch guides) shipping types documents are issued with',
  tag,
  permission: 'integrations.manage',
  params: IdParams,
  body: IssueSettingsBody,
  responses: {
    200: { description: 'The connection with its new settings, version + 1', schema: Connection },
    409: { description: '`version_mismatch`, `connection_revoked`, `connection_unauthorized`' },
    422: {
      description:
        '`invalid_issue_settings`: an id not among the live options, a document type of the wrong codeSii (receipt 39/41, invoice 33/34, creditNote 61, dispatchGuide 52) or a shipping type of the wrong codeSii (sale 1, internalTransfer 5, otherTransfer 6); errors name the field',
    },
    503: { description: '`provider_unavailable`' },
  },
  handle: async ({ params, body, caller }) => {
    const { record, writes } = await saveIssueSettings(caller.tenantId, params.id, body, caller.now);
    return { status: 200, body: toConnection(record), writes, resourceId: record.id };
  },
});

export const integrationOperations = [
  createProviderAuthorizationOperation,
  createSandboxAuthorizationOperation,
  sandboxAuthorizePageOperation,
  sandboxCallbackOperation,
  createConnectionOperation,
  listConnectionsOperation,
  getConnectionOperation,
  revokeConnectionOperation,
  issueOptionsOperation,
  putIssueSettingsOperation,
  // Imports, records and notices (functions/records) run in this function, which holds the provider access.
  ...recordOperations,
];
