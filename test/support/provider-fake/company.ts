import { SHIPPING_TYPES } from './catalogue.ts';
import type { FakeCatalogue, FakeCompany, FakeDocument, FakeDocumentDetail, FakeReference, FakeReturn, FakeShipping, FakeShippingType } from './types.ts';

/** A stored line: what the provider answers plus the taxes it was issued with. */
export interface StoredDetail { detail: FakeDocumentDetail; taxIds: number[]; documentId: number }

/** Ids are unique across companies, as the provider's are. */
export class IdSequence {
  private next = new Map<string, number>();
  constructor(private readonly starts: Record<string, number>) {}
  take(kind: string): number {
    const id = this.next.get(kind) ?? this.starts[kind] ?? 1;
    this.next.set(kind, id + 1);
    return id;
  }
}

/** One company's account at the provider: its catalogue and what was issued through the API. */
export class CompanyAccount {
  readonly documents: FakeDocument[] = [];
  readonly returns: FakeReturn[] = [];
  readonly details = new Map<number, StoredDetail[]>(); // by document id
  readonly returned = new Map<number, number>(); // quantity credited so far, by detail id
  /** Shippings with the salesId, guide type and destination office they were sent with (the provider answers none of them). */
  readonly shippings: { shipping: FakeShipping; salesId: string | null; documentTypeId: number; destinationOfficeId: number | null }[] = [];
  readonly references = new Map<number, FakeReference[]>(); // by document id
  /** Shippings whose first line the fake answers unreadable (a test's `damageShippingLines`). */
  readonly damagedShippings = new Set<number>();
  private readonly folios = new Map<number, number>(); // last folio, by document type id
  informedSii: 0 | 1 | 2;

  constructor(readonly company: FakeCompany, readonly accessToken: string, readonly catalogue: FakeCatalogue) {
    this.informedSii = company.informedSii ?? 0;
  }

  nextFolio(documentTypeId: number): number {
    const type = this.catalogue.documentTypes.find((t) => t.id === documentTypeId);
    const folio = (this.folios.get(documentTypeId) ?? (type?.initialNumber ?? 1) - 1) + 1;
    this.folios.set(documentTypeId, folio);
    return folio;
  }

  /** A catalogue without its own list serves the provider's standard shipping types. */
  shippingTypes(): FakeShippingType[] {
    return this.catalogue.shippingTypes ?? SHIPPING_TYPES;
  }

  document(id: number): FakeDocument | undefined {
    return this.documents.find((d) => d.id === id);
  }
}
