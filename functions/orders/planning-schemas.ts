import * as v from 'valibot';

/** decisions 15: the planning fields of an order. */
export const MAX_TIME_WINDOWS = 3;
export const MAX_SERVICE_MINUTES = 240;
export const MAX_ORDER_SKILLS = 10;

const ruled = '; a value that breaks this is 422 `invalid_order` naming the field';

/*
 * The request takes the planning fields' types here (a wrong type is 400 validation_failed) and
 * the order's planning check (planning.ts) judges their values, so that every breach of decisions
 * 15's rules is a 422 naming its field, with all of them reported at once.
 */
const TimeWindowInput = v.strictObject({
  from: v.pipe(v.string('must be a string'), v.description('HH:MM, the earliest start of service')),
  to: v.pipe(v.string('must be a string'), v.description('HH:MM, the latest start of service; later than from')),
});

export const OrderPlanningInput = {
  timeWindows: v.optional(
    v.pipe(
      v.array(TimeWindowInput, 'must be an array of {from, to}'),
      v.description(
        `0-${MAX_TIME_WINDOWS} windows in which service may start, HH:MM in the tenant’s time zone on the service date, from < to, none overlapping or touching another; answered in ascending order; empty (the default) means any time${ruled}`,
      ),
    ),
    [],
  ),
  serviceMinutes: v.optional(
    v.pipe(v.number('must be a number'), v.description(`Whole minutes spent at the stop, 0-${MAX_SERVICE_MINUTES}; default the tenant’s trackingStopMinutes at creation${ruled}`)),
  ),
  load: v.optional(
    v.pipe(
      v.strictObject({
        weightKg: v.optional(v.number('must be a number'), 0),
        volumeM3: v.optional(v.number('must be a number'), 0),
      }),
      v.description(`Each >= 0 with up to 3 decimals (at most 1000000); a member left out is 0${ruled}`),
    ),
    { weightKg: 0, volumeM3: 0 },
  ),
  skills: v.optional(
    v.pipe(
      v.array(v.string('must be a string'), 'must be an array of strings'),
      v.description(`0-${MAX_ORDER_SKILLS} skills of 1-40 characters (trimmed, compared exactly) the vehicle must have; a repeated one is kept once${ruled}`),
    ),
    [],
  ),
};

export const TimeWindow = v.object({ from: v.pipe(v.string(), v.description('HH:MM')), to: v.pipe(v.string(), v.description('HH:MM')) });
export const Load = v.object({ weightKg: v.number(), volumeM3: v.number() });

/** The planning fields every read of an order shows. */
export const OrderPlanning = {
  timeWindows: v.pipe(v.array(TimeWindow), v.description('Ascending; empty means any time')),
  serviceMinutes: v.pipe(v.number(), v.integer(), v.description('Minutes at the stop')),
  load: Load,
  skills: v.array(v.string()),
};
