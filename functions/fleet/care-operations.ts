import { defineOperation } from '../../shared/http/operation.ts';
import { IdParams } from '../../shared/http/schemas.ts';
import { getCareItem, getCareList, getVehicleCare, putVehicleCare, tenantDay } from './care.ts';
import { CareList, CareSuggestions, CareVehicle, OdometerBody, PutCareBody, ReadingParams, ReadingsPage, ReadingsQuery, RecordedOdometer } from './care-schemas.ts';
import { deleteReading, listReadings } from './odometer-readings.ts';
import { suggestCare } from './care-suggestions.ts';
import { recordOdometer } from './odometer.ts';
import { getVehicle } from './vehicles.ts';

const tag = 'Vehicle care';

export const putVehicleCareOperation = defineOperation({
  operationId: 'putVehicleCare',
  method: 'PUT',
  path: '/v1/fleet/vehicles/{id}/care',
  summary: 'Set a vehicle’s care dates and service km',
  tag,
  permission: 'fleet.write',
  params: IdParams,
  body: PutCareBody,
  responses: { 200: { description: 'The vehicle’s entry of the care list', schema: CareVehicle } },
  handle: async ({ params, body, caller }) => {
    const { entry, writes } = await putVehicleCare(caller.tenantId, params.id, body, caller.now);
    return { status: 200, body: entry, writes, resourceId: params.id };
  },
});

export const getVehicleCareOperation = defineOperation({
  operationId: 'getVehicleCare',
  method: 'GET',
  path: '/v1/fleet/vehicles/{id}/care',
  summary: 'Read a vehicle’s care record and odometer',
  tag,
  permission: 'fleet.read',
  params: IdParams,
  responses: { 200: { description: 'The vehicle’s entry of the care list', schema: CareVehicle } },
  handle: async ({ params, caller }) => ({ status: 200, body: await getVehicleCare(caller.tenantId, params.id, caller.now) }),
});

export const recordOdometerOperation = defineOperation({
  operationId: 'recordOdometer',
  method: 'POST',
  path: '/v1/fleet/vehicles/{id}/odometer',
  summary: 'Record an odometer reading',
  tag,
  permission: 'fleet.odometer',
  idempotent: true,
  params: IdParams,
  body: OdometerBody,
  responses: { 201: { description: 'The reading’s id and the vehicle’s odometer after it', schema: RecordedOdometer } },
  handle: async ({ params, body, caller }) => {
    const { view, writes } = await recordOdometer(caller.tenantId, params.id, body, caller.now, caller);
    return { status: 201, body: view, writes, resourceId: params.id };
  },
});

export const getCareListOperation = defineOperation({
  operationId: 'getCareList',
  method: 'GET',
  path: '/v1/fleet/care',
  summary: 'The care due list: every vehicle, and what falls due soon',
  tag,
  permission: 'fleet.read',
  responses: { 200: { description: 'The care list for the tenant’s today', schema: CareList } },
  handle: async ({ caller }) => ({ status: 200, body: await getCareList(caller.tenantId, caller.now) }),
});

export const getCareSuggestionsOperation = defineOperation({
  operationId: 'getCareSuggestions',
  method: 'GET',
  path: '/v1/fleet/vehicles/{id}/care/suggestions',
  summary: 'Care dates from Chilean rules by the vehicle’s class, owner and region, for the tenant to confirm',
  tag,
  permission: 'fleet.read',
  params: IdParams,
  responses: { 200: { description: 'Suggested dates', schema: CareSuggestions } },
  handle: async ({ params, caller }) => {
    const [vehicle, item, day] = await Promise.all([getVehicle(caller.tenantId, params.id), getCareItem(caller.tenantId, params.id), tenantDay(caller.tenantId, caller.now)]);
    return { status: 200, body: suggestCare(vehicle, item?.care?.technicalReview ?? null, day.today) };
  },
});

export const listOdometerReadingsOperation = defineOperation({
  operationId: 'listOdometerReadings',
  method: 'GET',
  path: '/v1/fleet/vehicles/{id}/odometer/readings',
  summary: 'List a vehicle’s odometer readings, newest first',
  tag,
  permission: 'fleet.read',
  params: IdParams,
  query: ReadingsQuery,
  responses: { 200: { description: 'A page of readings, newest readAt first', schema: ReadingsPage } },
  handle: async ({ params, query, caller }) => ({ status: 200, body: await listReadings(caller.tenantId, params.id, query) }),
});

export const deleteOdometerReadingOperation = defineOperation({
  operationId: 'deleteOdometerReading',
  method: 'DELETE',
  path: '/v1/fleet/vehicles/{id}/odometer/readings/{readingId}',
  summary: 'Remove a wrong odometer reading: the odometer and care list are as if it had never been posted',
  tag,
  permission: 'fleet.correct',
  idempotent: true,
  params: ReadingParams,
  responses: {
    204: { description: 'The reading is gone (its own idempotency key replays this answer)' },
    404: { description: 'No such vehicle, the vehicle never had this reading (another vehicle’s or another company’s included), or the reading was already removed (under a new key); nothing is removed' },
  },
  handle: async ({ params, caller }) => {
    const { writes } = await deleteReading(caller.tenantId, params.id, params.readingId, caller.now);
    return { status: 204, writes, resourceId: params.id };
  },
});

export const careOperations = [
  putVehicleCareOperation,
  getVehicleCareOperation,
  recordOdometerOperation,
  listOdometerReadingsOperation,
  deleteOdometerReadingOperation,
  getCareListOperation,
  getCareSuggestionsOperation,
];
