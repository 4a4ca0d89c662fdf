/**
 * The port's shapes of documents that shippings share (provider-chile.md), re-exported by port.ts.
 * Apart so that port.ts and shipping-shapes.ts both import them and neither imports the other.
 */

export interface ProviderDocument {
  id: string;
  /** The folio. */
  number: string | null;
  salesId: string | null;
  documentTypeId: string | null;
  /** 0 accepted by the tax authority, 1 sent, 2 rejected; null when the provider gave none. */
  informedSii: number | null;
  responseMsgSii: string | null;
  totalAmount: number | null;
  netAmount: number | null;
  taxAmount: number | null;
  urlPdf: string | null;
  /** Unix seconds of the day at 00:00 UTC. */
  emissionDate: number | null;
  /** The document's client (`client.id`), when the answer names one; absent where the source never says. */
  clientId?: string | null;
}

/** A line sent on a document or a shipping: `{variantId}` for a catalogue item or `{comment}` otherwise. */
export interface DocumentLineInput {
  variantId?: string;
  comment?: string;
  quantity: number;
  netUnitValue: number;
  taxId?: string | null;
}
