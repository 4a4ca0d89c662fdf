import { defineOperation } from '../../shared/http/operation.ts';
import { careOperations } from './care-operations.ts';
import { IdParams, PageQuery, pageOf } from '../../shared/http/schemas.ts';
import { checkTraits, CreateVehicleBody, UpdateVehicleBody, Vehicle } from './schemas.ts';
import { createVehicle, getVehicle, listVehicles, tenantRegion, updateVehicle } from './vehicles.ts';

const tag = 'Fleet';

export const createVehicleOperation = defineOperation({
  operationId: 'createVehicle',
  method: 'POST',
  path: '/v1/fleet/vehicles',
  summary: 'Register a vehicle',
  tag,
  permission: 'fleet.write',
  idempotent: true,
  body: CreateVehicleBody,
  responses: {
    201: { description: 'The vehicle', schema: Vehicle },
    422: { description: '`invalid_vehicle`: an unknown `class`, `ownerKind` or `region`, a `capacity` member not > 0 or with more than 3 decimals, more than 20 `skills` or one outside 1-40 characters (`errors` names each field)' },
  },
  handle: async ({ body, caller }) => {
    const traits = checkTraits(body);
    // The tenant's region at registration is the vehicle's own from then on.
    const region = traits.region ?? (await tenantRegion(caller.tenantId));
    const { vehicle, writes } = createVehicle(caller.tenantId, { ...traits, plate: body.plate, label: body.label, active: body.active, region }, caller.now);
    return { status: 201, body: vehicle, headers: { location: `/v1/fleet/vehicles/${vehicle.id}` }, writes, resourceId: vehicle.id };
  },
});

export const listVehiclesOperation = defineOperation({
  operationId: 'listVehicles',
  method: 'GET',
  path: '/v1/fleet/vehicles',
  summary: 'List vehicles',
  tag,
  permission: 'fleet.read',
  query: PageQuery,
  responses: { 200: { description: 'A page of vehicles, oldest first', schema: pageOf(Vehicle) } },
  handle: async ({ query, caller }) => ({ status: 200, body: await listVehicles(caller.tenantId, query) }),
});

export const getVehicleOperation = defineOperation({
  operationId: 'getVehicle',
  method: 'GET',
  path: '/v1/fleet/vehicles/{id}',
  summary: 'Read a vehicle',
  tag,
  permission: 'fleet.read',
  params: IdParams,
  responses: { 200: { description: 'The vehicle', schema: Vehicle } },
  handle: async ({ params, caller }) => ({ status: 200, body: await getVehicle(caller.tenantId, params.id) }),
});

export const updateVehicleOperation = defineOperation({
  operationId: 'updateVehicle',
  method: 'PATCH',
  path: '/v1/fleet/vehicles/{id}',
  summary: 'Change a vehicle',
  tag,
  permission: 'fleet.write',
  params: IdParams,
  body: UpdateVehicleBody,
  responses: {
    200: { description: 'The vehicle after the change', schema: Vehicle },
    422: { description: '`invalid_vehicle`: as on create (`errors` names each field)' },
  },
  handle: async ({ params, body, caller }) => {
    const { vehicle, writes } = await updateVehicle(caller.tenantId, params.id, { version: body.version, plate: body.plate, label: body.label, active: body.active, ...checkTraits(body) }, caller.now);
    return { status: 200, body: vehicle, writes, resourceId: vehicle.id };
  },
});

export const fleetOperations = [createVehicleOperation, listVehiclesOperation, getVehicleOperation, updateVehicleOperation, ...careOperations];
