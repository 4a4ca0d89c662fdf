import type { DocumentLineInput, ProviderDocument } from './document-shapes.ts';

/** The port's shapes of shippings (provider-chile.md "Dispatch guides"), re-exported by port.ts. */

/** A shipping (`POST /v1/shippings.json`): its guide is a document of the dispatch guide type (codeSii 52). */
export interface CreateShippingInput {
  /** The guide's document type (codeSii 52). */
  documentTypeId: string;
  officeId: string;
  emissionDate: number;
  shippingTypeId: string;
  salesId: string;
  clientId?: string | null;
  address: string;
  /** The comuna; empty when unknown. */
  municipality: string;
  city: string;
  recipient: string;
  /** As a document's; `netUnitValue` 0 where no price is given. */
  details: DocumentLineInput[];
  /** The receiving office of an internal transfer (a shipping type with useDestinationOffice 1); clientId is then not sent. */
  destinationOfficeId?: string | null;
}

/** A line of a shipping as the provider lists it (`GET /v1/shippings/{id}/details.json` or expanded). */
export interface ShippingDetail {
  quantity: number;
  variantId: string | null;
  /** The line's comment where the provider answers one (not documented for shippings). */
  note: string | null;
}

/**
 * A shipping's lines as one answer carried them. The provider pages expanded collections (at most
 * 25 lines, with `count`, `limit` and `offset`; provider-chile.md): `items` may be only the first
 * of `count`, the rest read from `GET /v1/shippings/{id}/details.json`. A line that cannot be read
 * is kept in `invalid`, never dropped: lines with a hole are not the shipping's lines.
 */
export interface ShippingLines {
  items: ShippingDetail[];
  /** The provider's total; null when it gave none (then `items` is all there is). */
  count: number | null;
  /** Where `items` start among the shipping's lines. */
  offset: number;
  invalid: InvalidLine[];
}

/** A line the port could not read, and why. */
export interface InvalidLine {
  raw: unknown;
  reason: string;
}

export interface ProviderShipping {
  id: string;
  /** The guide document's id: read it with getDocument. */
  guideId: string | null;
  shippingTypeId: string | null;
  officeId: string | null;
  /** The shipping's own fields (absent in older sandbox data): what a look-up matches on. */
  shippingDate?: number | null;
  address?: string | null;
  municipality?: string | null;
  city?: string | null;
  recipient?: string | null;
  /** With `expand=[guide]`: the guide document; null when not expanded or not readable. */
  guide?: ProviderDocument | null;
  /** With `expand=[details]`: the lines (possibly a first page of them); null when not expanded or not a list. */
  details?: ShippingLines | null;
}

/** `GET /v1/shippings.json`'s documented filters (provider-chile.md "Dispatch guides"). */
export interface ShippingFilter {
  /** Unix seconds, the day at 00:00 UTC (the shipping's emissionDate). */
  shippingDate: number;
  officeId: string;
  shippingTypeId: string;
}
