import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ForbiddenError } from '../../shared/errors.ts';
import type { Caller } from '../../shared/http/operation.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';

/** Route states in which its driver still drives the vehicle (decisions 11). */
const driving = new Set(['assigned', 'started']);

/**
 * A driver reports the odometer only of the vehicle of a route assigned to them for today in the
 * tenant's zone that is neither cancelled nor finished (decisions 11). One Query of the driver's
 * routes of that day on gsi1; staff report any vehicle of the tenant.
 */
export const assertMayReportOdometer = async (caller: Caller, vehicleId: string, today: string): Promise<void> => {
  if (caller.member.role !== 'driver') return;
  const { gsi1pk } = opsKeys.routeByWorker(caller.tenantId, caller.member.id, today, '');
  const { Items = [] } = await table().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND begins_with(gsi1sk, :day)',
      ExpressionAttributeValues: { ':pk': gsi1pk, ':day': `ROUTE#${today}#` },
    }),
  );
  if (!Items.some((route) => route.fleetVehicleId === vehicleId && driving.has(route.state as string))) {
    throw new ForbiddenError('A driver reports the odometer only of the vehicle of a route assigned to them for today that is not finished or cancelled.', 'not_assigned');
  }
};
