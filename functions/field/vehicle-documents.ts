import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { UnprocessableError } from '../../shared/errors.ts';
import { keys } from '../../shared/table/keys.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { DEFAULT_VEHICLE_DOCUMENTS_POLICY, getTenant } from '../../shared/tenancy/tenants.ts';
import { roadDocuments, type RoadDocument, type Warning } from './schemas.ts';

/** `path`: what named the vehicle in the request (the assignment's plate, the started route's id). */
export class VehicleDocumentsExpiredError extends UnprocessableError {
  constructor(items: RoadDocument[], serviceDate: string, path: string) {
    super(
      `The vehicle's ${items.join(', ')} expired before the route's service date ${serviceDate}; the tenant's policy blocks it.`,
      'vehicle_documents_expired',
      items.map((item) => ({ path, message: `the vehicle's ${item} expired before ${serviceDate}` })),
    );
    this.extensions.items = items;
  }
}

/** The registry's vehicle of a plate (normalised as the registry stores it), if it has one. */
export const registryVehicleId = async (tenantId: string, plate: string): Promise<string | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.plate(tenantId, plate), ConsistentRead: true }));
  return Item?.vehicleId as string | undefined;
};

/** The road documents of the vehicle's care record dated before the service day (on it, still valid). */
const expiredDocuments = async (tenantId: string, vehicleId: string, serviceDate: string): Promise<RoadDocument[]> => {
  // Read-only use of the fleet's care item (functions/fleet/care.ts writes it).
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.care(tenantId, vehicleId), ConsistentRead: true }));
  const care = Item?.care as Partial<Record<RoadDocument, string | null>> | undefined;
  return roadDocuments.filter((item) => {
    const date = care?.[item];
    return typeof date === 'string' && date < serviceDate;
  });
};

/**
 * The tenant's `vehicleDocumentsPolicy` applied to a route about to be assigned or started:
 * `block` refuses it (422), `warn` answers the expired documents as a warning, `ignore` nothing.
 * A vehicle the registry does not have (`vehicleId` undefined) is not checked.
 */
export const vehicleDocumentsWarnings = async (tenantId: string, vehicleId: string | undefined, serviceDate: string, path: string): Promise<Warning[]> => {
  const policy = (await getTenant(tenantId))?.vehicleDocumentsPolicy ?? DEFAULT_VEHICLE_DOCUMENTS_POLICY;
  if (policy === 'ignore' || !vehicleId) return [];
  const items = await expiredDocuments(tenantId, vehicleId, serviceDate);
  if (items.length === 0) return [];
  if (policy === 'block') throw new VehicleDocumentsExpiredError(items, serviceDate, path);
  return [{ code: 'vehicle_documents_expired', items }];
};
