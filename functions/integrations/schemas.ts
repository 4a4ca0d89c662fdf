import * as v from 'valibot';
import { DateTime, pageOf, Uuid, Version } from '../../shared/http/schemas.ts';
import { providerOrigins } from '../../shared/ports/billing-provider/port.ts';

/** The specification's shapes of "Provider authorization" and "Issue options and issue settings". */
const NormalisedRut = v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,8}-[0-9K]$/));
const BindingSecret = v.pipe(v.string('must be a string'), v.regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters'));
/** Decimal strings of 1-10 digits with no leading zero. */
export const OptionId = v.pipe(v.string('must be a string'), v.regex(/^[1-9][0-9]{0,9}$/, 'must be a decimal id of 1-10 digits without a leading zero'));
const Name = v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(120, 'must be at most 120 characters'));

export const AuthorizationBody = v.strictObject({
  clientCode: v.pipe(v.string('must be a string'), v.minLength(3, 'must be at least 3 characters'), v.maxLength(16, 'must be at most 16 characters')),
  name: Name,
});

export const Authorization = v.pipe(
  v.object({
    id: Uuid,
    clientCode: NormalisedRut,
    name: v.string(),
    expiresAt: DateTime,
    bindingSecret: BindingSecret,
    authorizeUrl: v.pipe(v.string(), v.url()),
  }),
  v.title('ProviderAuthorization'),
);
export type Authorization = v.InferOutput<typeof Authorization>;

export const CompletionBody = v.strictObject({
  code: v.pipe(v.string('must be a string'), v.regex(/^[A-Za-z0-9._~-]{8,512}$/, 'must be 8-512 letters, digits, dots, underscores, tildes or hyphens')),
  bindingSecret: BindingSecret,
});

/** The dispatch guide's settings (decisions 14) are optional: absent or null means "no guides", and invoices still issue. */
export const DocumentTypeIdsBody = v.strictObject({
  receipt: OptionId,
  invoice: OptionId,
  creditNote: OptionId,
  dispatchGuide: v.optional(v.nullable(OptionId)),
});

/** The provider's shipping types a guide is issued with, by the route's `transfer` (codeSii 1, 5 and 6). */
export const ShippingTypeIds = v.strictObject({ sale: OptionId, internalTransfer: OptionId, otherTransfer: OptionId });
export type ShippingTypeIds = v.InferOutput<typeof ShippingTypeIds>;

/**
 * As answered, `dispatchGuide` and `shippingTypeIds` are always present: null when not set, and
 * for settings stored before they existed (toConnectionRecord fills them in on read).
 */
export const DocumentTypeIds = v.object({
  receipt: OptionId,
  invoice: OptionId,
  creditNote: OptionId,
  dispatchGuide: v.nullable(OptionId),
});

export const IssueSettings = v.object({
  officeId: OptionId,
  vatTaxId: OptionId,
  documentTypeIds: DocumentTypeIds,
  dispatchStock: v.boolean(),
  shippingTypeIds: v.nullable(ShippingTypeIds),
});
export type IssueSettings = v.InferOutput<typeof IssueSettings>;

export const IssueSettingsBody = v.strictObject({
  version: Version,
  officeId: OptionId,
  vatTaxId: OptionId,
  documentTypeIds: DocumentTypeIdsBody,
  dispatchStock: v.optional(v.boolean('must be true or false')),
  shippingTypeIds: v.optional(v.nullable(ShippingTypeIds)),
});
export type IssueSettingsBody = v.InferOutput<typeof IssueSettingsBody>;

export const connectionStates = ['active', 'revoked'] as const;

export const Connection = v.pipe(
  v.object({
    id: Uuid,
    origin: v.picklist(providerOrigins),
    clientCode: NormalisedRut,
    name: v.string(),
    state: v.picklist(connectionStates),
    issueSettings: v.nullable(IssueSettings),
    version: Version,
    createdAt: DateTime,
    updatedAt: DateTime,
  }),
  v.title('ProviderConnection'),
);
export type Connection = v.InferOutput<typeof Connection>;

export const ConnectionPage = pageOf(Connection);

export const RevokeBody = v.strictObject({ version: Version });

const Short = v.pipe(v.string(), v.maxLength(120));
export const IssueOptions = v.pipe(
  v.object({
    offices: v.pipe(v.array(v.object({ id: OptionId, name: Short })), v.maxLength(200)),
    taxes: v.pipe(v.array(v.object({ id: OptionId, name: Short, percentage: v.number(), code: v.pipe(v.string(), v.maxLength(20)) })), v.maxLength(200)),
    documentTypes: v.pipe(v.array(v.object({ id: OptionId, name: Short, codeSii: v.nullable(v.pipe(v.string(), v.maxLength(10))) })), v.maxLength(200)),
    shippingTypes: v.pipe(v.array(v.object({ id: OptionId, name: Short, codeSii: v.nullable(v.pipe(v.string(), v.maxLength(10))) })), v.maxLength(200)),
    current: v.nullable(IssueSettings),
  }),
  v.title('IssueOptions'),
);
export type IssueOptions = v.InferOutput<typeof IssueOptions>;

/** The sandbox's consent page: `client_code` as the provider's login page takes it. */
export const SandboxAuthorizeQuery = v.object({ client_code: v.pipe(v.string(), v.minLength(3), v.maxLength(16)) });
export const SandboxCallbackQuery = v.object({ code: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._~-]{8,512}$/)) });
