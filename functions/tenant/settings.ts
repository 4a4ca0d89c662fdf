import { NotFoundError, UnprocessableError, VersionMismatchError, type FieldIssue } from '../../shared/errors.ts';
import { isChileRegion } from '../../shared/chile/regions.ts';
import { nowIso } from '../../shared/clock.ts';
import { tableName } from '../../shared/table/client.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { getTenant, ianaTimeZone, tenantItem, type Tenant } from '../../shared/tenancy/tenants.ts';
import type { TenantSettings, UpdateTenantSettingsBody } from './schemas.ts';

const settingsOf = (tenant: Tenant): TenantSettings => ({
  name: tenant.name,
  timeZone: tenant.timeZone,
  region: tenant.region as TenantSettings['region'],
  trackingSpeedKmh: tenant.trackingSpeedKmh,
  trackingStopMinutes: tenant.trackingStopMinutes,
  vehicleDocumentsPolicy: tenant.vehicleDocumentsPolicy,
  dispatchGuidesRequiredToStart: tenant.dispatchGuidesRequiredToStart,
  planningLeadMinutes: tenant.planningLeadMinutes,
  version: tenant.version,
  updatedAt: tenant.updatedAt,
});

const requireTenant = async (tenantId: string): Promise<Tenant> => {
  const tenant = await getTenant(tenantId);
  if (!tenant) throw new NotFoundError('This tenant has no settings.');
  return tenant;
};

export const getTenantSettings = async (tenantId: string): Promise<TenantSettings> => settingsOf(await requireTenant(tenantId));

/** Every unknown zone or region is named at once, so one answer tells the client all it must fix. */
const judged = (body: UpdateTenantSettingsBody): { timeZone?: string; region?: string } => {
  const issues: FieldIssue[] = [];
  const timeZone = body.timeZone === undefined ? undefined : ianaTimeZone(body.timeZone);
  if (timeZone === null) issues.push({ path: 'body.timeZone', message: 'not an IANA time zone (such as America/Santiago)' });
  const region = body.region?.toUpperCase();
  if (region !== undefined && !isChileRegion(region)) issues.push({ path: 'body.region', message: 'not an ISO 3166-2:CL region code (such as CL-RM)' });
  if (issues.length > 0) throw new UnprocessableError(`Unknown ${issues.map((i) => i.path.slice(5)).join(' and ')}.`, 'unknown_setting_value', issues);
  return { timeZone: timeZone ?? undefined, region };
};

/** Changes the settings the body names when `version` is the current one. */
export const updateTenantSettings = async (tenantId: string, body: UpdateTenantSettingsBody, now: Date): Promise<{ settings: TenantSettings; writes: Write[] }> => {
  const { timeZone, region } = judged(body);
  const current = await requireTenant(tenantId);
  if (current.version !== body.version) throw new VersionMismatchError(current.version, body.version);
  const { version: _sent, timeZone: _zone, region: _region, ...rest } = body;
  const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  const next: Tenant = {
    ...current,
    ...defined,
    ...(timeZone ? { timeZone } : {}),
    ...(region ? { region } : {}),
    version: current.version + 1,
    updatedAt: nowIso(now),
  };
  const write: Write = {
    item: {
      Put: {
        TableName: tableName(),
        Item: tenantItem(next),
        // The version read above may be stale by now: the write itself checks it. Items from
        // before settings had versions have none and read as version 1.
        ConditionExpression: body.version === 1 ? 'attribute_exists(pk) AND (attribute_not_exists(version) OR version = :expected)' : 'version = :expected',
        ExpressionAttributeValues: { ':expected': body.version },
      },
    },
    onConditionFailed: (old) => (old ? new VersionMismatchError((old.version as number | undefined) ?? 1, body.version) : new NotFoundError('This tenant has no settings.')),
  };
  return { settings: settingsOf(next), writes: [write] };
};
