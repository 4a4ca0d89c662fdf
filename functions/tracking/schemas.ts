import * as v from 'valibot';
import { DateTime } from '../../shared/http/schemas.ts';

/** The token stays a plain string: a malformed one is an unknown link (404), never a 400. */
export const TokenParams = v.strictObject({ token: v.string() });

/** The specification's public tracking view, field for field. */
export const TrackingView = v.pipe(
  v.strictObject({
    company: v.strictObject({ name: v.string() }),
    order: v.strictObject({ reference: v.string() }),
    state: v.picklist(['pending', 'on_the_way', 'arriving', 'delivered', 'failed']),
    eta: v.nullable(v.strictObject({ from: DateTime, to: DateTime, label: v.pipe(v.string(), v.description('"14:10 - 14:40" in the company’s time zone')) })),
    etaNote: v.nullable(v.string()),
    stopsBefore: v.nullable(v.pipe(v.number(), v.integer())),
    driver: v.nullable(v.strictObject({ firstName: v.string() })),
    approximatePosition: v.nullable(v.strictObject({ latitude: v.number(), longitude: v.number(), updatedAt: DateTime })),
    closedAt: v.nullable(DateTime),
    dispatchGuideNumber: v.pipe(v.nullable(v.string()), v.description('The folio of the dispatch guide the goods travel with, once it is issued (decisions 14); null before and for orders without one')),
    refreshSeconds: v.pipe(v.number(), v.integer()),
  }),
  v.title('TrackingView'),
);
export type TrackingView = v.InferOutput<typeof TrackingView>;
export type TrackingState = TrackingView['state'];
