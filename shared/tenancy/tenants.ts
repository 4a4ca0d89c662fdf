import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../clock.ts';
import { keys } from '../table/keys.ts';
import { table, tableName } from '../table/client.ts';

export const vehicleDocumentsPolicies = ['ignore', 'warn', 'block'] as const;
export type VehicleDocumentsPolicy = (typeof vehicleDocumentsPolicies)[number];

/**
 * The tenant item: its name and settings (decisions 13), one versioned item. Items stored before
 * a setting existed read its default; nothing migrates them.
 */
export interface Tenant {
  id: string;
  name: string;
  /** IANA zone for dates the tenant's people speak of ("hoy", ETA labels). */
  timeZone: string;
  /** ISO 3166-2:CL code of the tenant's region: the vehicles' default region. */
  region: string;
  /** The tracking ETA's average speed between stops (decisions 7). */
  trackingSpeedKmh: number;
  /** The tracking ETA's minutes spent at each stop before the recipient's. */
  trackingStopMinutes: number;
  /** What an expired vehicle document does to a route being assigned or started (decisions 11). */
  vehicleDocumentsPolicy: VehicleDocumentsPolicy;
  /** Stored and answered only: the dispatch-guides issue gives it its effect. */
  dispatchGuidesRequiredToStart: boolean;
  /** decisions 17: today's previews leave the depot no earlier than this many minutes after they are asked. */
  planningLeadMinutes: number;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export const DEFAULT_TIME_ZONE = 'America/Santiago';
export const DEFAULT_REGION = 'CL-RM';
export const DEFAULT_TRACKING_SPEED_KMH = 25;
export const DEFAULT_TRACKING_STOP_MINUTES = 5;
export const DEFAULT_VEHICLE_DOCUMENTS_POLICY: VehicleDocumentsPolicy = 'warn';
export const DEFAULT_PLANNING_LEAD_MINUTES = 15;

/** The canonical name of an IANA zone (any case, aliases such as UTC too), or null. */
export const ianaTimeZone = (text: string): string | null => {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(text)) return null;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: text }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
};

export const toTenant = (item: Record<string, any>): Tenant => ({
  id: item.tenantId,
  name: item.name,
  timeZone: item.timeZone ?? DEFAULT_TIME_ZONE,
  region: item.region ?? DEFAULT_REGION,
  // The ETA settings live in the item's `tracking` map, as they did before they had an API.
  trackingSpeedKmh: item.tracking?.speedKmh ?? DEFAULT_TRACKING_SPEED_KMH,
  trackingStopMinutes: item.tracking?.minutesPerStop ?? DEFAULT_TRACKING_STOP_MINUTES,
  vehicleDocumentsPolicy: item.vehicleDocumentsPolicy ?? DEFAULT_VEHICLE_DOCUMENTS_POLICY,
  dispatchGuidesRequiredToStart: item.dispatchGuidesRequiredToStart ?? false,
  planningLeadMinutes: item.planningLeadMinutes ?? DEFAULT_PLANNING_LEAD_MINUTES,
  version: item.version ?? 1,
  createdAt: item.createdAt,
  updatedAt: item.updatedAt ?? item.createdAt,
});

export const tenantItem = (tenant: Tenant) => ({
  ...keys.tenant(tenant.id),
  entity: 'tenant',
  tenantId: tenant.id,
  name: tenant.name,
  timeZone: tenant.timeZone,
  region: tenant.region,
  tracking: { speedKmh: tenant.trackingSpeedKmh, minutesPerStop: tenant.trackingStopMinutes },
  vehicleDocumentsPolicy: tenant.vehicleDocumentsPolicy,
  dispatchGuidesRequiredToStart: tenant.dispatchGuidesRequiredToStart,
  planningLeadMinutes: tenant.planningLeadMinutes,
  version: tenant.version,
  createdAt: tenant.createdAt,
  updatedAt: tenant.updatedAt,
});

/**
 * Read afresh on every call (strongly consistent): a settings change is seen by the next
 * request. A request that needs the tenant more than once passes the one it read.
 */
export const getTenant = async (tenantId: string): Promise<Tenant | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId), ConsistentRead: true }));
  return Item ? toTenant(Item) : undefined;
};

/** `npm run admin -- tenants create`: makes the tenant or renames it; a change counts as a version. */
export const putTenant = async (input: { id: string; name: string; timeZone?: string }): Promise<Tenant> => {
  const existing = await getTenant(input.id);
  // Run again with what the item already says (as `npm start` does for its demo tenant), it changes nothing.
  if (existing && existing.name === input.name && (input.timeZone ?? existing.timeZone) === existing.timeZone) return existing;
  const now = nowIso();
  const tenant: Tenant = {
    // Settings this command does not name are kept, not reset.
    ...(existing ?? toTenant({ tenantId: input.id, createdAt: now, version: 0 })),
    id: input.id,
    name: input.name,
    timeZone: input.timeZone ?? existing?.timeZone ?? DEFAULT_TIME_ZONE,
    version: (existing?.version ?? 0) + 1,
    updatedAt: now,
  };
  await table().send(new PutCommand({ TableName: tableName(), Item: tenantItem(tenant) }));
  return tenant;
};
