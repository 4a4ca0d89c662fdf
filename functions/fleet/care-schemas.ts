import * as v from 'valibot';
import { DateTime, IsoDate, Limit, Uuid } from '../../shared/http/schemas.ts';

/** Care rules of decisions 11, named so a client can tell which rule set produced a list. */
export const CARE_RULES_VERSION = 'cl-1';
export const SOON_DAYS = 30;
export const SOON_KM = 1000;
export const ODOMETER_WINDOW_DAYS = 90;
export const ODOMETER_MIN_READINGS = 2;
export const MAX_KM = 2_999_999;
export const MAX_CARE_VEHICLES = 1000;

const CareDate = v.nullable(v.pipe(IsoDate, v.description('YYYY-MM-DD, the day the document or service falls due')));
const ServiceKm = v.nullable(v.pipe(v.number('must be an integer or null'), v.integer('must be an integer or null'), v.minValue(1, 'must be at least 1'), v.maxValue(MAX_KM, `must be at most ${MAX_KM}`)));
const Km = v.pipe(v.number('must be an integer'), v.integer('must be an integer'), v.minValue(0, 'must be at least 0'), v.maxValue(MAX_KM, `must be at most ${MAX_KM}`));

/** The care record: dates of the documents and the service, and the odometer reading the next service is due at. */
export const Care = v.pipe(
  v.object({ technicalReview: CareDate, circulationPermit: CareDate, soap: CareDate, service: CareDate, serviceKm: ServiceKm }),
  v.title('VehicleCare'),
);
export type Care = v.InferOutput<typeof Care>;

export const PutCareBody = v.strictObject({
  version: v.pipe(v.number('must be an integer'), v.integer('must be an integer'), v.minValue(0, 'must be at least 0'), v.description('The care record’s current version: 0 before its first write')),
  ...Care.entries,
});
export type PutCareBody = v.InferOutput<typeof PutCareBody>;

export const OdometerBody = v.strictObject({
  km: Km,
  /** When the odometer showed km; not in the future. */
  readAt: DateTime,
});
export type OdometerBody = v.InferOutput<typeof OdometerBody>;

export const OdometerView = v.pipe(
  v.object({
    lastKm: v.pipe(v.number(), v.integer(), v.minValue(0)),
    lastReadAt: DateTime,
    dailyKm: v.pipe(v.nullable(v.number()), v.description('km per day between the oldest and newest reading of the last 90 days; null with fewer than 2 readings or all on one day')),
    readings: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Readings of the last 90 days')),
  }),
  v.title('OdometerView'),
);
export type OdometerView = v.InferOutput<typeof OdometerView>;

export const RecordedOdometer = v.pipe(
  v.object({ readingId: v.pipe(Uuid, v.description('Names the reading for a correction (DELETE …/odometer/readings/{readingId})')), ...OdometerView.entries }),
  v.title('RecordedOdometer'),
);

export const OdometerReading = v.pipe(
  v.object({
    readingId: Uuid,
    km: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_KM)),
    readAt: DateTime,
    recordedBy: v.pipe(v.nullable(Uuid), v.description('The member who posted it; null for readings stored before this was kept')),
    createdAt: DateTime,
  }),
  v.title('OdometerReading'),
);
export type OdometerReading = v.InferOutput<typeof OdometerReading>;

export const ReadingsQuery = v.strictObject({
  before: v.optional(v.pipe(Uuid, v.description('The last readingId of the previous page'))),
  limit: Limit,
});

export const ReadingsPage = v.pipe(v.object({ items: v.array(OdometerReading), nextCursor: v.nullable(Uuid) }), v.title('OdometerReadingsPage'));

export const ReadingParams = v.strictObject({ id: Uuid, readingId: Uuid });

export const CareVehicle = v.pipe(
  v.object({
    vehicleId: Uuid,
    label: v.pipe(v.string(), v.minLength(1), v.maxLength(120)),
    active: v.boolean(),
    care: v.nullable(Care),
    version: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('The care record’s version, 0 before its first write')),
    updatedAt: v.nullable(DateTime),
    odometer: v.nullable(OdometerView),
  }),
  v.title('CareListVehicle'),
);
export type CareVehicle = v.InferOutput<typeof CareVehicle>;

export const dueKinds = ['technical_review', 'circulation_permit', 'soap', 'service', 'service_km'] as const;
export type DueKind = (typeof dueKinds)[number];

export const DueItem = v.pipe(
  v.object({
    vehicleId: Uuid,
    label: v.pipe(v.string(), v.minLength(1), v.maxLength(120)),
    item: v.picklist(dueKinds),
    date: IsoDate,
    daysLeft: v.pipe(v.number(), v.integer()),
    status: v.picklist(['expired', 'today', 'soon']),
    km: v.nullable(
      v.object({
        dueKm: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_KM)),
        estimatedKm: v.pipe(v.number(), v.integer(), v.minValue(0)),
        leftKm: v.pipe(v.number(), v.integer()),
      }),
    ),
    text: v.pipe(v.string(), v.minLength(1), v.maxLength(400)),
    attention: v.boolean(),
  }),
  v.title('CareDueItem'),
);
export type DueItem = v.InferOutput<typeof DueItem>;

export const CareList = v.pipe(
  v.object({
    today: IsoDate,
    vehicles: v.pipe(v.array(CareVehicle), v.maxLength(MAX_CARE_VEHICLES)),
    due: v.pipe(v.array(DueItem), v.maxLength(5000)),
    kmLimited: v.pipe(v.boolean(), v.description('Some active vehicle with serviceKm has no daily distance: its km item uses the last reading, or it has no reading at all')),
    rules: v.object({ version: v.pipe(v.string(), v.minLength(1), v.maxLength(40)), items: v.string(), soon: v.string(), today: v.string() }),
    odometerRules: v.object({ windowDays: v.number(), minReadings: v.number() }),
  }),
  v.title('CareList'),
);
export type CareList = v.InferOutput<typeof CareList>;

const Source = v.pipe(v.string(), v.maxLength(300));

export const CareSuggestions = v.pipe(
  v.object({
    technicalReview: v.pipe(
      v.nullable(IsoDate),
      v.description('Every 12 months: the last day of the plate digit’s month, null when the plate does not end in a digit. Every 6 months: the recorded technicalReview plus 6 months, null when none is recorded'),
    ),
    circulationPermit: v.pipe(IsoDate, v.description('car and van: March 31; passenger: May 31; cargo: September 30; the next not past')),
    soap: v.pipe(v.nullable(IsoDate), v.description('car and van: March 31, the next not past; null for the other classes')),
    technicalReviewEveryMonths: v.picklist([6, 12]),
    sources: v.pipe(v.object({ technicalReview: Source, circulationPermit: Source, soap: Source }), v.description('The legal source of each rule')),
  }),
  v.title('CareSuggestions'),
);
export type CareSuggestions = v.InferOutput<typeof CareSuggestions>;
