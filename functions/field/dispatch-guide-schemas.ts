import * as v from 'valibot';
import { Uuid } from '../../shared/http/schemas.ts';
import { localStates, transfers } from '../invoicing/schemas.ts';

/** What a stop shows of its dispatch guide (decisions 14): null until the route made one. */
export const StopDispatchGuide = v.pipe(
  v.nullable(
    v.object({
      intentId: Uuid,
      number: v.pipe(v.nullable(v.string()), v.description('The guide’s folio, once the provider gave it')),
      localState: v.picklist(localStates),
      plate: v.pipe(
        v.nullable(v.string()),
        v.description('The route’s vehicle plate: the provider’s guide has no field for it, so the driver writes it on the printed guide before leaving (SII Res. Ex. 51/2015)'),
      ),
    }),
  ),
  v.description('The stop’s latest dispatch guide (an invoice intent of documentKind dispatch_guide), or null; a re-planned order shows its live guide from an earlier route'),
);
export type StopDispatchGuide = v.InferOutput<typeof StopDispatchGuide>;

export const DispatchGuidesBody = v.strictObject({
  transfer: v.pipe(
    v.picklist(transfers, 'must be sale, internal_transfer or other_transfer'),
    v.description(
      'Why the goods move: a sale (IndTraslado 1: every order needs a customerId and a price on every line), an internal transfer between the company’s own offices (5), or another transfer (6); the shipping types of the connection’s issue settings',
    ),
  ),
  destinationOfficeId: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.regex(/^[1-9][0-9]{0,9}$/, 'must be a provider office id'),
      v.description('internal_transfer only, and then required: the receiving office, an active office of the connection’s issue options other than its officeId'),
    ),
  ),
});
export type DispatchGuidesBody = v.InferOutput<typeof DispatchGuidesBody>;

export const RouteDispatchGuides = v.pipe(
  v.object({
    items: v.array(v.object({ stopId: Uuid, orderId: Uuid, intentId: Uuid })),
  }),
  v.description('Every live guide of the route’s stops with goods, in stop order: those made now and those made before'),
  v.title('RouteDispatchGuides'),
);
