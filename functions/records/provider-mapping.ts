import { normaliseRut } from '../../shared/chile/rut.ts';
import type { Contact, PartyFields, StockLevelFields, VariantFields } from './record-schemas.ts';

/**
 * From the billing provider's items (provider-chile.md, Reads) to the provider-side fields of the
 * canonical records (decisions 10, "Mapping from provider-chile-v1"). The result is checked
 * against the record schemas afterwards: a mapped item breaking a limit is an invalid_record.
 * Raised whenever the mapping changes what it produces, so stored records show which mapping made them.
 */
export const MAPPING_VERSION = 1;

type Id = number | string;
interface Relation {
  id: Id;
}

export interface ProviderVariant {
  id: Id;
  description?: string | null;
  code?: string | null;
  barCode?: string | null;
  state?: number;
  product?: Relation | null;
  /** Sandbox data only: a provider-monotonic version. */
  version?: string;
}
export interface ProviderStock {
  quantity: number | string;
  quantityReserved: number | string;
  quantityAvailable: number | string;
  variant: Relation;
  office: Relation;
  version?: string;
}
export interface ProviderContact {
  id: Id;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  phone?: string | null;
}
export interface ProviderClient {
  id: Id;
  firstName?: string | null;
  lastName?: string | null;
  company?: string | null;
  code?: string | null;
  email?: string | null;
  phone?: string | null;
  state?: number;
  contacts?: ProviderContact[];
}

/** An empty provider string is null (decisions 10). */
const orNull = (text: string | null | undefined): string | null => (text === undefined || text === null || text.trim() === '' ? null : text.trim());

const joinName = (first?: string | null, last?: string | null): string => [orNull(first), orNull(last)].filter(Boolean).join(' ');

const versionOf = (version: string | undefined) =>
  version === undefined
    ? ({ externalVersion: null, versionKind: 'local_observation' } as const)
    : ({ externalVersion: version, versionKind: 'provider_monotonic' } as const);

/**
 * A quantity as a plain decimal string. Numbers are written out without an exponent so that the
 * record's limits (24 integer digits, 6 decimals) judge the value itself, never a rounding of it.
 */
export const decimalText = (value: number | string): string => {
  if (typeof value === 'string') return value.trim();
  if (!Number.isFinite(value)) return String(value);
  if (Object.is(value, -0) || value === 0) return '0';
  const plain = String(value);
  if (!/e/i.test(plain)) return plain;
  return value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
};

export const mapVariant = (item: ProviderVariant): VariantFields => ({
  externalId: String(item.id),
  sku: orNull(item.code) ?? '',
  name: orNull(item.description) ?? '',
  unit: null,
  parentExternalId: item.product?.id === undefined || item.product?.id === null ? null : String(item.product.id),
  barCode: orNull(item.barCode),
  active: item.state === 0,
  ...versionOf(item.version),
});

export const mapStock = (item: ProviderStock): StockLevelFields => ({
  externalId: `${item.variant.id}:${item.office.id}`,
  variantExternalId: String(item.variant.id),
  officeExternalId: String(item.office.id),
  quantityPhysical: decimalText(item.quantity),
  quantityReserved: decimalText(item.quantityReserved),
  quantityAvailable: decimalText(item.quantityAvailable),
  ...versionOf(item.version),
});

const mapContact = (contact: ProviderContact): Contact => ({
  externalId: String(contact.id),
  name: joinName(contact.firstName, contact.lastName),
  email: orNull(contact.email),
  phone: orNull(contact.phone),
  externalVersion: null,
  versionKind: 'local_observation',
});

export const mapClient = (item: ProviderClient): PartyFields => {
  const code = orNull(item.code);
  return {
    externalId: String(item.id),
    name: orNull(item.company) ?? joinName(item.firstName, item.lastName),
    taxId: code === null ? null : normaliseRut(code),
    active: item.state === 0,
    contacts: (item.contacts ?? []).map(mapContact),
    externalVersion: null,
    versionKind: 'local_observation',
  };
};
