import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../clock.ts';
import { keys } from '../table/keys.ts';
import { table, tableName } from '../table/client.ts';

export interface Tenant {
  id: string;
  name: string;
  /** IANA zone for dates the tenant's people speak of ("hoy", ETA labels). */
  timeZone: string;
  /** ISO 3166-2:CL code of the tenant's region (decisions 13): the vehicles' default region. */
  region: string;
  /** ETA settings of the tracking page (decisions 7); absent: the defaults. */
  tracking?: { speedKmh?: number; minutesPerStop?: number };
  createdAt: string;
}

export const DEFAULT_TIME_ZONE = 'America/Santiago';
export const DEFAULT_REGION = 'CL-RM';

export const getTenant = async (tenantId: string): Promise<Tenant | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.tenant(tenantId) }));
  if (!Item) return undefined;
  return {
    id: Item.tenantId,
    name: Item.name,
    timeZone: Item.timeZone ?? DEFAULT_TIME_ZONE,
    region: Item.region ?? DEFAULT_REGION,
    ...(Item.tracking ? { tracking: Item.tracking } : {}),
    createdAt: Item.createdAt,
  };
};

export const putTenant = async (input: { id: string; name: string; timeZone?: string }): Promise<Tenant> => {
  const existing = await getTenant(input.id);
  const tenant: Tenant = {
    id: input.id,
    name: input.name,
    timeZone: input.timeZone ?? existing?.timeZone ?? DEFAULT_TIME_ZONE,
    region: existing?.region ?? DEFAULT_REGION,
    // Settings this command does not name are kept, not reset.
    ...(existing?.tracking ? { tracking: existing.tracking } : {}),
    createdAt: existing?.createdAt ?? nowIso(),
  };
  await table().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.tenant(tenant.id), entity: 'tenant', tenantId: tenant.id, name: tenant.name, timeZone: tenant.timeZone, region: tenant.region, tracking: tenant.tracking, createdAt: tenant.createdAt },
    }),
  );
  return tenant;
};
