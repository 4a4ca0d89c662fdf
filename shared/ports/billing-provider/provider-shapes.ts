import type { Client, InvalidItem, Contact, DocumentDetail, DocumentType, Office, ProviderDocument, ProviderReturn, ProviderShipping, ShippingDetail, ShippingLines, ShippingType, StockLevel, Tax, Variant } from './port.ts';

/**
 * The provider's JSON (provider-chile.md) read into the port's shapes. The HTTP adapter reads its
 * answers with these, and the sandbox reads its data files (decisions 10: "in the shapes of
 * provider-chile.md") with the very same functions, so both speak the port alike.
 */
type Raw = Record<string, unknown>;

/** Ids come as numbers, relations as `{href, id: "2"}`: both become decimal strings. */
const id = (value: unknown): string | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (value && typeof value === 'object') return id((value as Raw).id);
  return null;
};
const requiredId = (value: unknown, what: string): string => {
  const out = id(value);
  if (out === null) throw new TypeError(`provider ${what} without an id`);
  return out;
};
/** An empty provider string is null (decisions 10). */
const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : typeof value === 'number' ? String(value) : null);
const num = (value: unknown): number | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return null;
};
/**
 * A quantity: absent is 0 (sandbox files may leave one out), a number or a numeric string is
 * read, anything else (null, "abc", an object) makes the item unreadable rather than a silent 0.
 */
const quantity = (value: unknown, what: string): number => {
  if (value === undefined) return 0;
  const out = num(value);
  if (out === null) throw new TypeError(`provider ${what} with a quantity that does not parse`);
  return out;
};

/**
 * Reads a list's items one by one: an item that cannot be read goes to `invalid` (with its id
 * when it has one) and the others are read as usual, so one bad item never fails a page.
 */
export const readEach = <T>(raws: unknown[], read: (raw: Raw) => T): { items: T[]; invalid: InvalidItem[] } => {
  const items: T[] = [];
  const invalid: InvalidItem[] = [];
  for (const raw of raws) {
    try {
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new TypeError('provider item that is not an object');
      items.push(read(raw as Raw));
    } catch (error) {
      const r = (raw && typeof raw === 'object' ? raw : {}) as Raw;
      const variant = id(r.variant);
      const office = id(r.office);
      // Only a stock line carries both a variant and an office: its record id is theirs (decisions
      // 10), never the provider's own stock id, so the user finds the conflict under the id they know.
      const externalId = variant !== null && office !== null ? `${variant}:${office}` : id(r.id);
      invalid.push({ externalId, raw, reason: (error as Error).message });
    }
  }
  return { items, invalid };
};

/** `state` 0 is active; a missing state counts as active (the provider always sends it). */
const active = (raw: Raw): boolean => raw.state === undefined || raw.state === null || Number(raw.state) === 0;
const version = (raw: Raw): string | null => (raw.version === undefined || raw.version === null ? null : String(raw.version));

export const readOffice = (raw: Raw): Office => ({ id: requiredId(raw.id, 'office'), name: text(raw.name) ?? '', active: active(raw) });

export const readTax = (raw: Raw): Tax => ({
  id: requiredId(raw.id, 'tax'),
  name: text(raw.name) ?? '',
  percentage: num(raw.percentage) ?? 0,
  code: text(raw.code),
  active: active(raw),
});

export const readDocumentType = (raw: Raw): DocumentType => ({
  id: requiredId(raw.id, 'document type'),
  name: text(raw.name) ?? '',
  codeSii: text(raw.codeSii),
  isElectronic: Number(raw.isElectronicDocument) === 1,
  isCreditNote: Number(raw.isCreditNote) === 1,
  active: active(raw),
});

export const readVariant = (raw: Raw): Variant => ({
  id: requiredId(raw.id, 'variant'),
  description: text(raw.description),
  code: text(raw.code),
  barCode: text(raw.barCode),
  productId: id(raw.product),
  active: active(raw),
  version: version(raw),
});

export const readStock = (raw: Raw): StockLevel => ({
  variantId: requiredId(raw.variant, 'stock variant'),
  officeId: requiredId(raw.office, 'stock office'),
  quantity: quantity(raw.quantity, 'stock'),
  quantityReserved: quantity(raw.quantityReserved, 'stock'),
  quantityAvailable: quantity(raw.quantityAvailable, 'stock'),
  version: version(raw),
});

export const readClient = (raw: Raw): Client => ({
  id: requiredId(raw.id, 'client'),
  firstName: text(raw.firstName),
  lastName: text(raw.lastName),
  company: text(raw.company),
  code: text(raw.code),
  email: text(raw.email),
  phone: text(raw.phone),
  active: active(raw),
});

export const readContact = (raw: Raw): Contact => ({
  id: requiredId(raw.id, 'contact'),
  firstName: text(raw.firstName),
  lastName: text(raw.lastName),
  email: text(raw.email),
  phone: text(raw.phone),
});

export const readDocument = (raw: Raw): ProviderDocument => ({
  id: requiredId(raw.id, 'document'),
  number: text(raw.number),
  salesId: text(raw.salesId),
  documentTypeId: id(raw.document_type),
  informedSii: num(raw.informedSii),
  responseMsgSii: text(raw.responseMsgSii),
  totalAmount: num(raw.totalAmount),
  netAmount: num(raw.netAmount),
  taxAmount: num(raw.taxAmount),
  urlPdf: text(raw.urlPdf),
  emissionDate: num(raw.emissionDate),
  clientId: id(raw.client),
});

export const readDocumentDetail = (raw: Raw): DocumentDetail => ({
  id: requiredId(raw.id, 'document detail'),
  lineNumber: num(raw.lineNumber),
  quantity: num(raw.quantity) ?? 0,
  netUnitValue: num(raw.netUnitValue) ?? 0,
});

export const readReturn = (raw: Raw): ProviderReturn => ({
  id: requiredId(raw.id, 'return'),
  creditNoteId: id(raw.credit_note),
  referenceDocumentId: id(raw.reference_document),
});

/** `codeSii` is text in provider-chile.md; the provider's own example answers a number: both read as text. */
export const readShippingType = (raw: Raw): ShippingType => ({
  id: requiredId(raw.id, 'shipping type'),
  name: text(raw.name) ?? '',
  codeSii: text(raw.codeSii),
  useDestinationOffice: Number(raw.useDestinationOffice) === 1,
  active: active(raw),
});

/** A shipping's line (`GET /v1/shippings/{id}/details.json`, or an expanded `details`' items). */
export const readShippingDetail = (raw: Raw): ShippingDetail => ({
  quantity: quantity(raw.quantity, 'shipping detail'),
  variantId: id(raw.variant),
  note: text(raw.note),
});

/** An expanded relation carries more than `{href, id}`; a bare link is not expanded. */
const expanded = (value: unknown): value is Raw => !!value && typeof value === 'object' && Object.keys(value as Raw).some((k) => k !== 'href' && k !== 'id');

/**
 * An expanded `details`: `{count, limit, offset, items}` (the provider pages it at 25 lines), or
 * null when it is only a link. Lines that do not parse, and an expansion without a list of items,
 * are kept as `invalid`: the shipping's lines are then known to be unreadable, never taken for
 * fewer lines or for none (decisions 19).
 */
const readShippingLines = (value: unknown): ShippingLines | null => {
  if (Array.isArray(value)) value = { items: value };
  if (!expanded(value)) return null;
  if (!Array.isArray(value.items)) return { items: [], count: null, offset: 0, invalid: [{ raw: value, reason: 'expanded details without a list of items' }] };
  const read = readEach(value.items, readShippingDetail);
  const count = value.count === undefined || value.count === null ? null : num(value.count);
  const offset = value.offset === undefined || value.offset === null ? 0 : num(value.offset);
  const invalid = read.invalid.map(({ raw, reason }) => ({ raw, reason }));
  if (count === null && value.count !== undefined && value.count !== null) invalid.push({ raw: value.count, reason: 'a count that does not parse' });
  if (offset === null) invalid.push({ raw: value.offset, reason: 'an offset that does not parse' });
  return { items: read.items, count, offset: offset ?? 0, invalid };
};

/**
 * A shipping; with `expand=[guide,details]` also its guide document and lines. A guide that cannot
 * be read leaves `guide` null (the match then compares what the shipping itself says); lines are
 * read as readShippingLines says.
 */
export const readShipping = (raw: Raw): ProviderShipping => {
  let guide: ProviderDocument | null = null;
  try {
    if (expanded(raw.guide)) guide = readDocument(raw.guide);
  } catch {
    guide = null;
  }
  return {
    id: requiredId(raw.id, 'shipping'),
    guideId: id(raw.guide),
    shippingTypeId: id(raw.shipping_type),
    officeId: id(raw.office),
    shippingDate: num(raw.shippingDate),
    address: text(raw.address),
    municipality: text(raw.municipality),
    city: text(raw.city),
    recipient: text(raw.recipient),
    guide,
    details: readShippingLines(raw.details),
  };
};
