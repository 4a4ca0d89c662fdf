import * as v from 'valibot';
import { DateTime, pageOf, Uuid, Version } from '../../shared/http/schemas.ts';
import { MinorAmount, Quantity } from '../../shared/http/amount-schemas.ts';

/** The specification's "Invoice intent" and "Invoice line", with decisions 9's input rules. */
export const documentKinds = ['receipt', 'invoice', 'credit_note', 'dispatch_guide'] as const;
export const DocumentKind = v.picklist(documentKinds);
export type DocumentKind = v.InferOutput<typeof DocumentKind>;
/** Dispatch guides are made by their route (POST /v1/field/routes/{id}/dispatch-guides), never created here. */
export const CreatableKind = v.picklist(['receipt', 'invoice', 'credit_note'], 'must be receipt, invoice or credit_note (dispatch guides are made by their route)');
export const transfers = ['sale', 'internal_transfer', 'other_transfer'] as const;
export type Transfer = (typeof transfers)[number];

export const localStates = ['draft', 'reviewed', 'approved', 'submitting', 'unknown', 'provider_recorded', 'issued', 'rejected', 'cancelled'] as const;
export const providerStates = ['not_sent', 'unknown', 'received', 'processing', 'accepted', 'rejected'] as const;
export const taxStates = ['not_submitted', 'unknown', 'pending', 'authorized', 'rejected'] as const;
export type LocalState = (typeof localStates)[number];
export type ProviderState = (typeof providerStates)[number];
export type TaxState = (typeof taxStates)[number];

const text = (min: number, max: number) =>
  v.pipe(v.string('must be a string'), v.minLength(min, `must be at least ${min} characters`), v.maxLength(max, `must be at most ${max} characters`));

export { MinorAmount };

export const LineInput = v.strictObject({
  conceptKey: text(1, 64),
  description: text(1, 1000),
  quantity: Quantity,
  unitPriceMinor: MinorAmount,
  catalogItemId: v.optional(v.nullable(Uuid)),
  creditedPosition: v.optional(v.nullable(v.pipe(v.number('must be an integer'), v.integer('must be an integer'), v.minValue(1, 'must be at least 1')))),
});
export type LineInput = v.InferOutput<typeof LineInput>;

/** A receipt (boleta) holds up to 200 lines; the shape check takes that many for every kind. */
export const MAX_LINES = 200;
/** decisions 16: an invoice, a credit note or a guide holds at most 60 (DTE_v10.xsd, `Detalle` maxOccurs 60). */
export const MAX_DOCUMENT_LINES = 60;
/** decisions 16: an invoice made from dispatch guides names 1-40 of them (DTE_v10.xsd, `Referencia` maxOccurs 40). */
export const MAX_DISPATCH_GUIDES = 40;

export const CreateIntentBody = v.strictObject({
  connectionId: Uuid,
  documentKind: CreatableKind,
  customerId: v.nullable(Uuid),
  creditedInvoiceId: v.optional(Uuid),
  currency: v.pipe(v.string('must be a string'), v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as CLP')),
  minorUnitScale: v.pipe(v.number('must be an integer'), v.integer('must be an integer'), v.minValue(0, 'must be at least 0'), v.maxValue(4, 'must be at most 4')),
  totalMinor: MinorAmount,
  /** Absent when `dispatchGuideIds` is given (the lines are then the guides'), required otherwise. */
  lines: v.optional(v.pipe(v.array(LineInput, 'must be an array of lines'), v.minLength(1, 'must have at least one line'), v.maxLength(MAX_LINES, `must have at most ${MAX_LINES} lines`))),
  dispatchGuideIds: v.optional(
    v.pipe(v.array(Uuid, 'must be an array of guide intent ids'), v.minLength(1, 'must name at least one guide'), v.maxLength(MAX_DISPATCH_GUIDES, `must name at most ${MAX_DISPATCH_GUIDES} guides`)),
  ),
});
export type CreateIntentBody = v.InferOutput<typeof CreateIntentBody>;

export const VersionBody = v.strictObject({ version: Version });

export const InvoiceLine = v.pipe(
  v.object({
    position: v.number(),
    conceptKey: v.string(),
    description: v.string(),
    quantity: v.string(),
    unitPriceMinor: v.string(),
    lineTotalMinor: v.string(),
    catalogItemId: v.nullable(Uuid),
    creditedPosition: v.nullable(v.number()),
  }),
  v.title('InvoiceLine'),
);
export type InvoiceLine = v.InferOutput<typeof InvoiceLine>;

export const InvoiceIntent = v.pipe(
  v.object({
    id: Uuid,
    tenantId: Uuid,
    connectionId: Uuid,
    documentKind: DocumentKind,
    customerId: v.nullable(Uuid),
    creditedInvoiceId: v.nullable(Uuid),
    correlationId: Uuid,
    currency: v.string(),
    minorUnitScale: v.number(),
    totalMinor: v.string(),
    localState: v.picklist(localStates),
    providerState: v.picklist(providerStates),
    taxState: v.picklist(taxStates),
    externalDocumentId: v.nullable(v.string()),
    providerVersion: v.nullable(v.string()),
    documentNumber: v.pipe(v.nullable(v.string()), v.description('The provider document’s folio, once the provider holds it')),
    dispatch: v.pipe(
      v.nullable(v.object({ orderId: Uuid, routeId: Uuid, stopId: Uuid, transfer: v.picklist(transfers) })),
      v.description('For a dispatch guide: the order, route and stop it travels with, and why the goods move; null for other kinds'),
    ),
    version: v.number(),
    createdAt: DateTime,
    updatedAt: DateTime,
    /** The dispatch guides an invoice was made from (decisions 14); empty for every other intent. */
    dispatchGuideIds: v.array(Uuid),
  }),
  v.title('InvoiceIntent'),
);
export type InvoiceIntent = v.InferOutput<typeof InvoiceIntent>;

export const InvoiceIntentPage = pageOf(InvoiceIntent);
export const InvoiceLines = v.object({ items: v.array(InvoiceLine) });
