import { ForbiddenError, NotFoundError } from '../../shared/errors.ts';
import type { Caller } from '../../shared/http/operation.ts';
import type { RouteRecord } from './schemas.ts';

const isDriver = (caller: Caller) => caller.member.role === 'driver';

/** A driver acts only on the routes assigned to them; staff act on any route of the tenant. */
export const assertMayAct = (caller: Caller, route: RouteRecord): void => {
  if (isDriver(caller) && route.workerId !== caller.member.id) throw new ForbiddenError('This route is assigned to another driver.', 'not_assigned');
};

/** A driver reading someone else's route learns nothing about it, not even that it exists. */
export const assertMayRead = (caller: Caller, route: RouteRecord): void => {
  if (isDriver(caller) && route.workerId !== caller.member.id) throw new NotFoundError('No route with this id.');
};
