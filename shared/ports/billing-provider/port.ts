/**
 * The billing provider port (decisions 10): what connections, invoicing and imports ask of a
 * provider. Two implementations: `sandbox-v1` (in-process) and `provider-chile-v1` (HTTP). Shapes
 * here are the provider-chile.md fields, with ids as decimal strings and empty strings as null,
 * so that both implementations and every caller read them the same way.
 */
import type { DocumentLineInput, ProviderDocument } from './document-shapes.ts';
import type { CreateShippingInput, ProviderShipping, ShippingDetail, ShippingFilter } from './shipping-shapes.ts';

export type * from './document-shapes.ts';
export type * from './shipping-shapes.ts';

export const providerOrigins = ['sandbox-v1', 'provider-chile-v1'] as const;
export type ProviderOrigin = (typeof providerOrigins)[number];

/** What a completed authorization yields; the access token is a secret (sealed at rest). */
export interface ProviderGrant {
  accessToken: string;
  clientCode: string;
  clientName: string;
}

export interface ProviderSession {
  accessToken: string;
  /** Whose connection it is: the sandbox keeps documents per tenant and connection (the real provider ignores it). */
  owner?: { tenantId: string; connectionId: string };
}

export interface Office {
  id: string;
  name: string;
  active: boolean;
}

export interface Tax {
  id: string;
  name: string;
  percentage: number;
  code: string | null;
  active: boolean;
}

export interface DocumentType {
  id: string;
  name: string;
  /** null for the provider's non-electronic types (its codeSii is empty). */
  codeSii: string | null;
  isElectronic: boolean;
  isCreditNote: boolean;
  active: boolean;
}

/** A shipping type ("tipo de despacho"): the SII's reason goods travel (1 sale, 5 internal transfer, 6 other transfer not a sale...). */
export interface ShippingType {
  id: string;
  name: string;
  /** The provider's text (it may answer a number); null when it has none. */
  codeSii: string | null;
  useDestinationOffice: boolean;
  active: boolean;
}

export interface Variant {
  id: string;
  description: string | null;
  code: string | null;
  barCode: string | null;
  productId: string | null;
  active: boolean;
  /** Sandbox data may carry a version (decimal string); the real provider has none. */
  version: string | null;
}

export interface StockLevel {
  variantId: string;
  officeId: string;
  quantity: number;
  quantityReserved: number;
  quantityAvailable: number;
  version: string | null;
}

export interface Contact {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
}

export interface Client {
  id: string;
  firstName: string | null;
  lastName: string | null;
  company: string | null;
  code: string | null;
  email: string | null;
  phone: string | null;
  active: boolean;
}

export interface DocumentDetail {
  id: string;
  lineNumber: number | null;
  quantity: number;
  netUnitValue: number;
}

export interface Page<T> {
  items: T[];
  /** The provider's total, when it says. */
  count: number | null;
  /** Offset of the next page, null on the last one. */
  nextOffset: number | null;
  /**
   * Items of the page that could not be read (null, no id, a quantity that does not parse): kept
   * apart so one bad item never fails the whole page. Imports record them as invalid_record.
   */
  invalid?: InvalidItem[];
}

/** A provider item the port could not read, with what could be told of it. */
export interface InvalidItem {
  /** Its id (for a stock line `variant:office`) when it has one. */
  externalId: string | null;
  raw: unknown;
  reason: string;
}

export interface PageRequest {
  offset?: number;
  /** At most PAGE_LIMIT (the provider's own maximum). */
  limit?: number;
  /** Only active items (`state=0`). */
  activeOnly?: boolean;
  /**
   * The caller's own deadline over several calls (each call also has its own): when it aborts,
   * the read ends as "unknown" (ProviderUnavailableError, reason timeout).
   */
  signal?: AbortSignal;
}

export const PAGE_LIMIT = 50;

/** The stock list's filters (`variantid`, `officeid`): a notice names one variant's stock. */
export interface StockFilter {
  variantId?: string;
  officeId?: string;
}

/** A document another one names (an invoice naming the dispatch guides it covers). */
export interface DocumentReference {
  /** The referenced document's folio. */
  number: string;
  /** Unix seconds of its emission day at 00:00 UTC. */
  referenceDate: number;
  /**
   * The referenced document's SII code (52 for a dispatch guide). Sent as `codeSii` (the
   * provider's name, provider-chile.md corrected); this field keeps its old name because stored
   * intents carry it.
   */
  dteCodeSii: number;
  reason: string;
}

export interface IssueDocumentInput {
  documentTypeId: string;
  officeId: string;
  emissionDate: number;
  salesId: string;
  clientId?: string | null;
  dispatch?: boolean;
  details: DocumentLineInput[];
  /** Sent as the document's `references` when not empty. */
  references?: DocumentReference[];
}

/**
 * What a caller may pass to a single call: its own deadline. An aborted signal means nothing is
 * sent (a call waiting its turn or a 429's wait ends as "unknown", reason timeout) and a request
 * in flight is cut.
 */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface CreateReturnInput {
  documentTypeId: string;
  officeId: string;
  referenceDocumentId: string;
  emissionDate: number;
  motive: string;
  salesId: string;
  clientId?: string | null;
  details: Array<{ documentDetailId: string; quantity: number }>;
}

export interface ProviderReturn {
  id: string;
  creditNoteId: string | null;
  referenceDocumentId: string | null;
}

/** `created: false` means the provider already held one for this salesId and answered it. */
export interface Issued<T> {
  created: boolean;
  value: T;
}

export interface FindDocumentsInput {
  salesId: string;
  documentTypeId: string;
  /** Unix seconds (day at 00:00 UTC), inclusive. */
  emissionDateFrom: number;
  emissionDateTo: number;
}

export interface BillingProvider {
  readonly origin: ProviderOrigin;
  /** Trades the code the consent screen gave for an access token (refused: ProviderRefusedError). */
  exchangeCode(code: string): Promise<ProviderGrant>;
  listOffices(session: ProviderSession, page?: PageRequest): Promise<Page<Office>>;
  listTaxes(session: ProviderSession, page?: PageRequest): Promise<Page<Tax>>;
  listDocumentTypes(session: ProviderSession, page?: PageRequest): Promise<Page<DocumentType>>;
  listShippingTypes(session: ProviderSession, page?: PageRequest): Promise<Page<ShippingType>>;
  listVariants(session: ProviderSession, page?: PageRequest): Promise<Page<Variant>>;
  listStocks(session: ProviderSession, page?: PageRequest, filter?: StockFilter): Promise<Page<StockLevel>>;
  /** One variant (`GET /v1/variants/{id}.json`); undefined when the provider has none (404). */
  getVariant(session: ProviderSession, variantId: string): Promise<Variant | undefined>;
  listClients(session: ProviderSession, page?: PageRequest): Promise<Page<Client>>;
  listContacts(session: ProviderSession, clientId: string, page?: PageRequest): Promise<Page<Contact>>;
  /** Sends a document once per salesId: a repeat answers the earlier document (`created: false`). */
  issueDocument(session: ProviderSession, input: IssueDocumentInput, options?: CallOptions): Promise<Issued<ProviderDocument>>;
  getDocument(session: ProviderSession, documentId: string, options?: CallOptions): Promise<ProviderDocument | undefined>;
  getDocumentDetails(session: ProviderSession, documentId: string, options?: CallOptions): Promise<DocumentDetail[]>;
  /** A lookup that never creates: the documents of that type and dates whose salesId matches. */
  findDocumentsBySalesId(session: ProviderSession, input: FindDocumentsInput, options?: CallOptions): Promise<ProviderDocument[]>;
  createReturn(session: ProviderSession, input: CreateReturnInput, options?: CallOptions): Promise<Issued<ProviderReturn>>;
  /**
   * POST /v1/shippings.json. The provider documents no salesId de-duplication for shippings:
   * every call may make a shipping and a guide (`created` is the answer's 201, nothing more).
   */
  createShipping(session: ProviderSession, input: CreateShippingInput, options?: CallOptions): Promise<Issued<ProviderShipping>>;
  /** One page of `GET /v1/shippings.json` by the documented filters, expanded with guide and details: a look-up that never creates. */
  listShippings(session: ProviderSession, filter: ShippingFilter, page?: PageRequest): Promise<Page<ProviderShipping>>;
  /**
   * One page of `GET /v1/shippings/{id}/details.json`: the lines an expanded `details` did not
   * carry (it holds at most 25, provider-chile.md). `count` is the shipping's number of lines.
   */
  listShippingDetails(session: ProviderSession, shippingId: string, page?: PageRequest): Promise<Page<ShippingDetail>>;
}
