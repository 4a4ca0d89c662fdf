import { randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoEndpoint } from '../support/dynamo-endpoint.ts';
import { ensureTable } from '../../infra/local/create-table.ts';
import { newId } from '../../shared/ids.ts';
import { keys } from '../../shared/table/keys.ts';
import { resetTableClient, table, tableName } from '../../shared/table/client.ts';
import { getTenant, putTenant } from '../../shared/tenancy/tenants.ts';
import { OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';

describe('tenants', () => {
  beforeAll(async () => {
    const name = `tenants-${randomUUID()}`;
    await ensureTable(dynamoEndpoint(), name);
    Object.assign(process.env, { DYNAMODB_ENDPOINT: dynamoEndpoint(), TABLE_NAME: name });
    resetTableClient();
  });

  // The admin command's functions, run as the operator who runs `npm run admin`.
  it('keeps settings that `tenants create` does not name when it runs again', () => runAs(OPERATOR, async () => {
    const id = newId();
    await putTenant({ id, name: 'Frutas del Maule', timeZone: 'America/Punta_Arenas' });
    await table().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.tenant(id), UpdateExpression: 'SET tracking = :t', ExpressionAttributeValues: { ':t': { speedKmh: 40, minutesPerStop: 8 } } }),
    );
    await putTenant({ id, name: 'Frutas del Maule SpA' });
    expect(await getTenant(id)).toMatchObject({ name: 'Frutas del Maule SpA', timeZone: 'America/Punta_Arenas', trackingSpeedKmh: 40, trackingStopMinutes: 8, version: 2 });
  }));

  it('changes nothing, not even the version, when run again with what the item says', () => runAs(OPERATOR, async () => {
    const id = newId();
    const first = await putTenant({ id, name: 'Sur Frío SpA', timeZone: 'America/Punta_Arenas' });
    expect(await putTenant({ id, name: 'Sur Frío SpA' })).toEqual(first);
    expect(await getTenant(id)).toEqual(first);
  }));

  it('reads the defaults of settings a tenant stored before them lacks, at version 1', () => runAs(OPERATOR, async () => {
    const id = newId();
    // A tenant item as `tenants create` wrote it before decisions 13.
    await table().send(new PutCommand({ TableName: tableName(), Item: { ...keys.tenant(id), entity: 'tenant', tenantId: id, name: 'Antigua SpA', timeZone: 'America/Santiago', createdAt: '2026-01-05T12:00:00.000Z' } }));
    expect(await getTenant(id)).toEqual({
      id,
      name: 'Antigua SpA',
      timeZone: 'America/Santiago',
      region: 'CL-RM',
      trackingSpeedKmh: 25,
      trackingStopMinutes: 5,
      vehicleDocumentsPolicy: 'warn',
      dispatchGuidesRequiredToStart: false,
      planningLeadMinutes: 15,
      version: 1,
      createdAt: '2026-01-05T12:00:00.000Z',
      updatedAt: '2026-01-05T12:00:00.000Z',
    });
  }));
});
