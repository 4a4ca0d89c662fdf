import * as v from 'valibot';
import { Uuid } from '../../shared/http/schemas.ts';

/**
 * The canonical records of the specification ("Canonical records"): exact limits, so that a
 * record breaking one is never stored (it becomes an `invalid_record` conflict instead).
 */
const text = (min: number, max: number) => v.pipe(v.string('must be a string'), v.minLength(min, `must be at least ${min} characters`), v.maxLength(max, `must be at most ${max} characters`));
const nullableText = (min: number, max: number) => v.nullable(text(min, max));

export const ExternalId = text(1, 180);

/** 1-30 digits, no leading zero: a provider's monotonic version as text (compared as BigInt). */
export const ProviderVersion = v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,29}$/, 'must be 1-30 digits without a leading zero'));

/** Optional minus, up to 24 integer digits without leading zeros, optional 1-6 decimals. */
export const Quantity = v.pipe(v.string(), v.regex(/^-?(0|[1-9][0-9]{0,23})(\.[0-9]{1,6})?$/, 'must be a decimal of up to 24 integer digits and 6 decimals'));

export const VersionKind = v.picklist(['provider_monotonic', 'local_observation']);
export type VersionKind = v.InferOutput<typeof VersionKind>;

/** The service's own fields around the provider's (specification: common to every kind). */
export const RecordEnvelope = v.object({
  id: Uuid,
  connectionId: Uuid,
  causationId: Uuid,
  observationVersion: v.pipe(v.number(), v.integer(), v.minValue(1)),
  mappingVersion: v.pipe(v.number(), v.integer(), v.minValue(1)),
  origin: v.picklist(['sandbox-v1', 'provider-chile-v1']),
  importedAt: v.pipe(v.string(), v.isoTimestamp(), v.endsWith('Z')),
});

/** provider_monotonic carries a version; local_observation carries null. */
const versioned = <T extends v.ObjectEntries>(entries: T) =>
  v.pipe(
    v.object({ ...entries, externalVersion: v.nullable(ProviderVersion), versionKind: VersionKind }),
    v.check(
      (record) => (record.versionKind === 'provider_monotonic') === (record.externalVersion !== null),
      'externalVersion must be set exactly when versionKind is provider_monotonic',
    ),
  );

export const Contact = versioned({
  externalId: ExternalId,
  name: text(1, 120),
  email: nullableText(1, 254),
  phone: nullableText(1, 64),
});
export type Contact = v.InferOutput<typeof Contact>;

/** What the provider says of each kind: the fields that count for the canonical form. */
const variantEntries = {
  externalId: ExternalId,
  sku: text(1, 120),
  name: text(1, 120),
  unit: nullableText(1, 32),
  parentExternalId: nullableText(1, 180),
  barCode: nullableText(1, 120),
  active: v.boolean(),
};
const stockLevelEntries = {
  externalId: ExternalId,
  variantExternalId: ExternalId,
  officeExternalId: ExternalId,
  quantityPhysical: Quantity,
  quantityReserved: Quantity,
  quantityAvailable: Quantity,
};
const partyEntries = {
  externalId: ExternalId,
  name: text(1, 120),
  taxId: nullableText(1, 32),
  active: v.boolean(),
  contacts: v.pipe(v.array(Contact), v.maxLength(100, 'must hold at most 100 contacts')),
};
export const VariantFields = versioned(variantEntries);
export const StockLevelFields = versioned(stockLevelEntries);
export const PartyFields = versioned(partyEntries);

/** The records as the API answers them: the envelope and the provider's fields, one flat object. */
export const VariantRecord = v.pipe(versioned({ ...RecordEnvelope.entries, ...variantEntries }), v.title('ProductVariantRecord'));
export const StockLevelRecord = v.pipe(versioned({ ...RecordEnvelope.entries, ...stockLevelEntries }), v.title('StockLevelRecord'));
export const PartyRecord = v.pipe(versioned({ ...RecordEnvelope.entries, ...partyEntries }), v.title('PartyRecord'));

export type VariantFields = v.InferOutput<typeof VariantFields>;
export type StockLevelFields = v.InferOutput<typeof StockLevelFields>;
export type PartyFields = v.InferOutput<typeof PartyFields>;

export const streams = {
  variants: VariantFields,
  stock_levels: StockLevelFields,
  parties: PartyFields,
} as const;
export type Stream = keyof typeof streams;
export type RecordFields = VariantFields | StockLevelFields | PartyFields;

