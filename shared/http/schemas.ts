import * as v from 'valibot';

/** Building blocks shared by every operation's schemas, so that the same rule reads the same everywhere. */
export const Uuid = v.pipe(v.string(), v.uuid('must be a UUID'));

export const DateTime = v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 date-time'));

export const IsoDate = v.pipe(v.string(), v.isoDate('must be a date YYYY-MM-DD'));

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
