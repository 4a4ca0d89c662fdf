import * as v from 'valibot';
import { chileRegionCodes } from '../../shared/chile/regions.ts';
import { DateTime, Version } from '../../shared/http/schemas.ts';
import { vehicleDocumentsPolicies } from '../../shared/tenancy/tenants.ts';

const Name = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(120, 'must be at most 120 characters'));
const integerIn = (min: number, max: number) =>
  v.pipe(v.number('must be an integer'), v.integer('must be an integer'), v.minValue(min, `must be at least ${min}`), v.maxValue(max, `must be at most ${max}`));
const SpeedKmh = v.pipe(integerIn(5, 120), v.description('Average speed between stops for the tracking ETA, km/h'));
const StopMinutes = v.pipe(integerIn(0, 60), v.description('Minutes the tracking ETA counts for each stop before the recipient’s'));
const Policy = v.pipe(
  v.picklist(vehicleDocumentsPolicies, 'must be ignore, warn or block'),
  v.description('An expired technical review, circulation permit or SOAP of the route’s vehicle when a route is assigned or started: ignore, warn (the answer’s warnings) or block (422)'),
);
const GuidesRequired = v.pipe(
  v.boolean('must be true or false'),
  v.description('When true, starting a route with a stop whose order has goods and whose dispatch guide is not issued or provider_recorded is 409 dispatch_guides_missing (with the stop ids)'),
);
const LeadMinutes = v.pipe(
  integerIn(0, 240),
  v.description('Minutes after a preview for today is asked before its routes may leave the depot (its earliestStartAt, decisions 17)'),
);

export const TenantSettings = v.pipe(
  v.object({
    name: v.string(),
    timeZone: v.pipe(v.string(), v.description('IANA time zone of the tenant’s dates')),
    region: v.pipe(v.picklist(chileRegionCodes), v.description('ISO 3166-2:CL code; the default region of new vehicles')),
    trackingSpeedKmh: SpeedKmh,
    trackingStopMinutes: StopMinutes,
    vehicleDocumentsPolicy: Policy,
    dispatchGuidesRequiredToStart: GuidesRequired,
    planningLeadMinutes: LeadMinutes,
    version: Version,
    updatedAt: DateTime,
  }),
  v.title('TenantSettings'),
);
export type TenantSettings = v.InferOutput<typeof TenantSettings>;

/** Zone and region are strings here and judged by the operation: an unknown one is 422 naming it. */
export const UpdateTenantSettingsBody = v.strictObject({
  version: Version,
  name: v.optional(Name),
  timeZone: v.optional(v.pipe(v.string('must be a string'), v.maxLength(64, 'must be at most 64 characters'), v.description('An IANA time zone such as America/Santiago'))),
  region: v.optional(v.pipe(v.string('must be a string'), v.maxLength(8, 'must be at most 8 characters'), v.description('An ISO 3166-2:CL code such as CL-RM'))),
  trackingSpeedKmh: v.optional(SpeedKmh),
  trackingStopMinutes: v.optional(StopMinutes),
  vehicleDocumentsPolicy: v.optional(Policy),
  dispatchGuidesRequiredToStart: v.optional(GuidesRequired),
  planningLeadMinutes: v.optional(LeadMinutes),
});
export type UpdateTenantSettingsBody = v.InferOutput<typeof UpdateTenantSettingsBody>;
