/** Shapes of the fake billing provider, following /work/shared/spec/provider-chile.md. */

/** A relation as catalogue input: the id may be a number or the provider's string. */
export interface FakeRelationInput { id: number | string }
/** A relation as the provider answers it: `{"href", "id": "<string>"}`. */
export interface FakeRelation { href: string; id: string }

export interface FakeCompany {
  clientCode: string; // '76123456-0'
  clientName: string;
  /** What new documents report in `informedSii` (0 accepted, 1 sent, 2 rejected); default 0. */
  informedSii?: 0 | 1 | 2;
}

export interface FakeOffice { id: number; name: string; state: number; address?: string; isVirtual?: number }
export interface FakeTax { id: number; name: string; percentage: string; code: string; state: number; forRetention?: number }
export interface FakeDocumentType {
  id: number; name: string; codeSii: string; isElectronicDocument: number; isCreditNote: number; state: number;
  /** Whether the type needs a client (invoices); defaults to codeSii 33/34. */
  useClient?: number; initialNumber?: number;
}
export interface FakeShippingType { id: number; name: string; codeSii: string; useDestinationOffice: number; state: number }
export interface FakeVariant {
  id: number; description: string; code: string; barCode: string; state: number; product: FakeRelationInput;
  /** Sandbox data may carry it; the provider never answers it. */
  version?: string;
}
export interface FakeStock {
  id?: number; quantity: number; quantityReserved: number; quantityAvailable: number;
  variant: FakeRelationInput; office: FakeRelationInput; version?: string;
}
export interface FakeContact { id: number; firstName: string; lastName: string; email: string; phone: string }
export interface FakeClient {
  id: number; firstName: string; lastName: string; company: string; code: string; email: string; phone: string;
  state: number; contacts?: FakeContact[];
}

export interface FakeCatalogue {
  offices: FakeOffice[];
  taxes: FakeTax[];
  documentTypes: FakeDocumentType[];
  /** Absent in older catalogue files: the provider's standard list is served then. */
  shippingTypes?: FakeShippingType[];
  variants: FakeVariant[];
  stocks: FakeStock[];
  clients: FakeClient[];
}

/** A document as the provider answers `GET /v1/documents/{id}.json`. */
export interface FakeDocument {
  href: string; id: number; emissionDate: number; expirationDate: number; generationDate: number;
  number: number; salesId: string | null;
  totalAmount: number; netAmount: number; taxAmount: number; exemptAmount: number;
  urlPublicView: string; urlPdf: string; token: string; state: number;
  informedSii: number; responseMsgSii: string | null;
  document_type: FakeRelation; office: FakeRelation; client: FakeRelation | null;
  details: { href: string }; document_taxes: { href: string }; references: { href: string };
}

/** A reference as POST /v1/documents.json takes it (provider-chile.md's names) and the fake keeps it. */
export interface FakeReference { number: string; referenceDate: number; codeSii: number; reason: string }

/** A shipping as the provider answers `POST /v1/shippings.json` and `GET /v1/shippings/{id}.json`. */
export interface FakeShipping {
  href: string; id: number; shippingDate: number; address: string; municipality: string; city: string; recipient: string;
  state: number; office: FakeRelation; shipping_type: FakeRelation; guide: FakeRelation; details: { href: string };
}

/** A line as the provider answers `GET /v1/documents/{id}/details.json`. */
export interface FakeDocumentDetail {
  href: string; id: number; lineNumber: number; quantity: number; netUnitValue: number; totalUnitValue: number;
  netAmount: number; taxAmount: number; totalAmount: number; netDiscount: number; totalDiscount: number;
  variant: { href: string; id: number; description: string; code: string } | null;
  note: string; relatedDetailId: number;
}

/** A return as the provider answers `POST /v1/returns.json`. */
export interface FakeReturn {
  href: string; id: number; salesId: string | null; motive: string; returnDate: number; amount: number;
  type: number; priceAdjustment: number; editTexts: number;
  office: FakeRelation; reference_document: FakeRelation; credit_note: FakeRelation;
  details: { href: string };
}

export interface FakeFault {
  route: string; // e.g. 'POST /v1/documents.json' or '*'
  kind: 'status' | 'status_after_apply' | 'timeout_after_apply' | 'hang' | 'reset' | 'delay' | 'items' | 'no_id';
  status?: number; // for 'status': 429, 500, 502... applied BEFORE the route's effect; for 'status_after_apply' after it
  delayMs?: number;
  // 'no_id': the route applies and answers its 2xx, but the body comes without its `id`
  items?: unknown[]; // for 'items': raw items added to the list's page as they are (null, no id, a bad quantity...)
  times?: number; // default 1
}
