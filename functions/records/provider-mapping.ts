import { normaliseRut } from '../../shared/chile/rut.ts';
import type { Client, Contact as ProviderContact, StockLevel, Variant } from '../../shared/ports/billing-provider/port.ts';
import type { Contact, PartyFields, StockLevelFields, VariantFields } from './record-schemas.ts';

/**
 * From the billing provider port's items (provider-chile.md, Reads, as the port normalises them) to the provider-side fields of the
 * canonical records (decisions 10, "Mapping from provider-chile-v1"). The result is checked
 * against the record schemas afterwards: a mapped item breaking a limit is an invalid_record.
 * Raised whenever the mapping changes what it produces, so stored records show which mapping made them.
 */
export const MAPPING_VERSION = 1;

/** An empty provider string is null (decisions 10). */
const orNull = (text: string | null | undefined): string | null => (text === undefined || text === null || text.trim() === '' ? null : text.trim());

const joinName = (first?: string | null, last?: string | null): string => [orNull(first), orNull(last)].filter(Boolean).join(' ');

const versionOf = (version: string | null) =>
  version === null
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

export const mapVariant = (item: Variant): VariantFields => ({
  externalId: item.id,
  sku: orNull(item.code) ?? '',
  name: orNull(item.description) ?? '',
  unit: null,
  parentExternalId: item.productId,
  barCode: orNull(item.barCode),
  active: item.active,
  ...versionOf(item.version),
});

export const mapStock = (item: StockLevel): StockLevelFields => ({
  externalId: `${item.variantId}:${item.officeId}`,
  variantExternalId: item.variantId,
  officeExternalId: item.officeId,
  quantityPhysical: decimalText(item.quantity),
  quantityReserved: decimalText(item.quantityReserved),
  quantityAvailable: decimalText(item.quantityAvailable),
  ...versionOf(item.version),
});

const mapContact = (contact: ProviderContact): Contact => ({
  externalId: contact.id,
  name: joinName(contact.firstName, contact.lastName),
  email: orNull(contact.email),
  phone: orNull(contact.phone),
  externalVersion: null,
  versionKind: 'local_observation',
});

/** A client with its contacts, which the provider lists apart (`/v1/clients/{id}/contacts.json`). */
export const mapClient = (item: Client, contacts: ProviderContact[]): PartyFields => {
  const code = orNull(item.code);
  return {
    externalId: item.id,
    name: orNull(item.company) ?? joinName(item.firstName, item.lastName),
    taxId: code === null ? null : normaliseRut(code),
    active: item.active,
    contacts: contacts.map(mapContact),
    externalVersion: null,
    versionKind: 'local_observation',
  };
};
