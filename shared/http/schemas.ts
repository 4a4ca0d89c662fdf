import * as v from 'valibot';

/** Building blocks shared by every operation's schemas, so that the same rule reads the same everywhere. */
export const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));

const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/**
 * valibot's ISO checks are patterns that let any month have a 31st day, so `2026-02-31` would
 * pass and then roll over to March 3 wherever it is read. The date part must exist.
 */
export const isCalendarDay = (text: string): boolean => {
  // Text of another shape is the format check's to refuse: one error per field, not two.
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return true;
  const [year, month, day] = text.slice(0, 10).split('-').map(Number);
  return day <= daysInMonth(year, month);
};

const existingDay = v.check<string, string>(isCalendarDay, 'must be a date that exists in the calendar');

/** Every date-time an operation takes or gives: ISO 8601 with an offset, on a real calendar day. */
export const DateTime = v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 date-time'), existingDay);
/** A date-time the service stamps itself, always in UTC. */
export const UtcDateTime = v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 date-time'), existingDay, v.endsWith('Z', 'must be in UTC (Z)'));

/** Every calendar date (`serviceDate`, event days): YYYY-MM-DD, on a real calendar day. */
export const IsoDate = v.pipe(v.string(), v.isoDate('must be a date YYYY-MM-DD'), existingDay);

export const Version = v.pipe(v.number('must be an integer'), v.integer('must be an integer'), v.minValue(1, 'must be at least 1'));

export const IdParams = v.strictObject({ id: Uuid });

/** `limit` arrives as text in the query string: 1..100, default 50 (decisions 3). */
export const Limit = v.optional(
  v.pipe(
    v.string(),
    v.regex(/^[0-9]{1,4}$/, 'must be a whole number'),
    v.transform(Number),
    v.minValue(1, 'must be at least 1'),
    v.maxValue(100, 'must be at most 100'),
  ),
  '50',
);

export const PageQuery = v.strictObject({ after: v.optional(Uuid), limit: Limit });

export const pageOf = <T extends v.GenericSchema>(item: T) =>
  v.object({ items: v.array(item), nextCursor: v.nullable(Uuid) });

/**
 * Coordinates are kept to 7 decimals (about 1 cm): finer digits are noise, and a magnitude
 * below DynamoDB's smallest number (1e-130) would otherwise make the write itself fail.
 */
const coordinate = (limit: number) =>
  v.pipe(
    v.number('must be a number'),
    v.minValue(-limit, `must be at least -${limit}`),
    v.maxValue(limit, `must be at most ${limit}`),
    v.transform((value) => Math.round(value * 1e7) / 1e7 + 0),
  );
export const Latitude = coordinate(90);
export const Longitude = coordinate(180);
