import { defineOperation } from '../../shared/http/operation.ts';
import { TenantSettings, UpdateTenantSettingsBody } from './schemas.ts';
import { getTenantSettings, updateTenantSettings } from './settings.ts';

const tag = 'Tenant settings';
const path = '/v1/tenant/settings';

export const getTenantSettingsOperation = defineOperation({
  operationId: 'getTenantSettings',
  method: 'GET',
  path,
  summary: 'Read the company’s settings',
  tag,
  permission: 'settings.read',
  responses: { 200: { description: 'The settings', schema: TenantSettings } },
  handle: async ({ caller }) => ({ status: 200, body: await getTenantSettings(caller.tenantId) }),
});

export const updateTenantSettingsOperation = defineOperation({
  operationId: 'updateTenantSettings',
  method: 'PATCH',
  path,
  summary: 'Change the company’s settings',
  tag,
  permission: 'settings.manage',
  idempotent: true,
  body: UpdateTenantSettingsBody,
  responses: { 200: { description: 'The settings after the change', schema: TenantSettings } },
  handle: async ({ body, caller }) => {
    const { settings, writes } = await updateTenantSettings(caller.tenantId, body, caller.now);
    return { status: 200, body: settings, writes, resourceId: caller.tenantId };
  },
});

export const tenantOperations = [getTenantSettingsOperation, updateTenantSettingsOperation];
