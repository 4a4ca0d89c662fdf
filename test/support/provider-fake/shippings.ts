import type { CompanyAccount } from './company.ts';
import { checkClient, checkDetails, checkEmissionDate, checkOffice, checkSalesId, dispatch, documentType, line, storeDocument, type IssueContext } from './documents.ts';
import { fail, intParam, isInteger, isObject, page, relation } from './http.ts';
import type { FakeShipping } from './types.ts';

/** `address`, `municipality`, `city`, `recipient`: text; only the address may not be empty (the comuna and city may be unknown). */
const checkText = (body: Record<string, unknown>, name: 'address' | 'municipality' | 'city' | 'recipient', required: boolean): string => {
  const value = body[name];
  if (typeof value !== 'string') return fail(400, `${name} must be a string`);
  if (required && value.trim() === '') fail(400, `${name} must not be empty`);
  return value;
};

/**
 * `POST /v1/shippings.json` (provider-chile.md, "Dispatch guides"): a shipping and its guide, a
 * document of the codeSii 52 type with its own folio. The provider documents no `salesId` for
 * shippings, so the fake ignores it as we must assume the provider does: a repeated POST makes a
 * second shipping and a second guide (the guide document carries no salesId). The salesId sent is
 * kept beside the shipping only for the tests' counts. An internal transfer (a shipping type with
 * `useDestinationOffice` 1) needs `destinationOfficeId`, another active office, and names no
 * client. Anything missing or invalid is 400 `{"error"}` and changes nothing.
 */
export const createShipping = (context: IssueContext, body: unknown): { created: boolean; shipping: FakeShipping } => {
  const { account, ids, base } = context;
  if (!isObject(body)) return fail(400, 'the body must be a JSON object');
  const type = documentType(account, body.documentTypeId);
  const salesId = checkSalesId(body.salesId);
  if (type.codeSii !== '52') fail(400, `document type ${type.id} is not a dispatch guide (codeSii 52)`);
  const officeId = checkOffice(account, body.officeId);
  const emissionDate = checkEmissionDate(body.emissionDate);
  if (!isInteger(body.shippingTypeId)) fail(400, 'shippingTypeId must be an integer');
  const shippingType = account.shippingTypes().find((t) => t.id === body.shippingTypeId && t.state === 0) ?? fail(400, `shipping type ${String(body.shippingTypeId)} not found`);
  if (body.declareSii !== undefined && body.declareSii !== 0 && body.declareSii !== 1) fail(400, 'declareSii must be 0 or 1');
  if (body.dispatch !== undefined && body.dispatch !== 0 && body.dispatch !== 1) fail(400, 'dispatch must be 0 or 1');
  const address = checkText(body, 'address', true);
  const municipality = checkText(body, 'municipality', false);
  const city = checkText(body, 'city', false);
  const recipient = checkText(body, 'recipient', false);
  const destinationOfficeId = checkDestination(account, body, shippingType.useDestinationOffice === 1, officeId);
  const clientId = checkClient(account, body.clientId, null);
  const inputs = checkDetails(account, body.details);
  if (body.dispatch === 1) dispatch(account, officeId, inputs);
  const documentId = ids.take('document');
  const lines = inputs.map((input, i) => line(account, ids, base, documentId, i, input));
  // The guide carries no salesId: the provider documents none for shippings.
  const guide = storeDocument(context, { documentId, type, officeId, emissionDate, salesId: null, clientId }, lines);
  const id = ids.take('shipping');
  const shipping: FakeShipping = {
    href: `${base}/v1/shippings/${id}.json`,
    id,
    shippingDate: emissionDate,
    address,
    municipality,
    city,
    recipient,
    state: 0,
    office: relation(base, 'offices', officeId),
    shipping_type: relation(base, 'shipping_types', shippingType.id),
    guide: relation(base, 'documents', guide.id),
    details: { href: `${base}/v1/shippings/${id}/details.json` },
  };
  account.shippings.push({ shipping, salesId, documentTypeId: type.id, destinationOfficeId });
  return { created: true, shipping };
};

/** `destinationOfficeId`: required (another active office) for an internal transfer, which then names no client; refused on other types. */
const checkDestination = (account: CompanyAccount, body: Record<string, unknown>, internal: boolean, officeId: number): number | null => {
  const value = body.destinationOfficeId;
  if (!internal) {
    if (value !== undefined && value !== null) fail(400, 'destinationOfficeId is only for a shipping type with useDestinationOffice 1');
    return null;
  }
  if (value === undefined || value === null) fail(400, 'destinationOfficeId is required for an internal transfer');
  const destination = checkOffice(account, value);
  if (destination === officeId) fail(400, 'destinationOfficeId must be another office than officeId');
  if (body.clientId !== undefined && body.clientId !== null) fail(400, 'an internal transfer names no client (clientId)');
  return destination;
};

/**
 * The shipping's lines as the provider lists them (`GET /v1/shippings/{id}/details.json`): the
 * guide's lines. A shipping the test damaged (`damageShippingLines`) answers its first line with
 * a quantity that is not a number, as a provider with a broken line would.
 */
const shippingDetails = (account: CompanyAccount, base: string, shipping: FakeShipping) =>
  (account.details.get(Number(shipping.guide.id)) ?? []).map(({ detail }, index) => ({
    href: `${base}/v1/shippings/${shipping.id}/details/${detail.id}.json`,
    id: detail.id,
    quantity: index === 0 && account.damagedShippings.has(shipping.id) ? 'n/a' : (detail.quantity as number | string),
    variantStock: 0,
    variantCost: 0,
    variant: detail.variant ? relation(base, 'variants', detail.variant.id) : null,
    note: detail.note,
  }));

/** An expanded collection holds at most this many items, beside `count`, `limit` and `offset` (provider-chile.md, corrected). */
export const EXPANDED_LIMIT = 25;

const expansions = (url: URL): string[] => (url.searchParams.get('expand') ?? '').replace(/[[\]\s]/g, '').split(',');

/** A shipping as served, with `expand=[guide,details]` (either or both) in place of the links. */
const served = (account: CompanyAccount, base: string, shipping: FakeShipping, expand: string[]) => ({
  ...shipping,
  ...(expand.includes('guide') ? { guide: account.document(Number(shipping.guide.id)) ?? shipping.guide } : {}),
  ...(expand.includes('details') ? { details: expandedDetails(account, base, shipping) } : {}),
});

/** `details` expanded: its first 25 lines and how many there are; the rest is read from details.json. */
const expandedDetails = (account: CompanyAccount, base: string, shipping: FakeShipping) => {
  const lines = shippingDetails(account, base, shipping);
  return { href: shipping.details.href, count: lines.length, limit: EXPANDED_LIMIT, offset: 0, items: lines.slice(0, EXPANDED_LIMIT) };
};

/**
 * `GET /v1/shippings.json` with the documented filters (`shippingdate`, `officeid`,
 * `shippingtypeid`, `state`, `documentid` the guide's id), `expand`, paged by `limit` (at most
 * 50) and `offset`; oldest first (ids ascending, as the documentation's example lists them).
 */
export const listShippings = (account: CompanyAccount, url: URL, base: string) => {
  const date = intParam(url, 'shippingdate');
  const officeId = intParam(url, 'officeid');
  const typeId = intParam(url, 'shippingtypeid');
  const state = intParam(url, 'state');
  const documentId = intParam(url, 'documentid');
  const expand = expansions(url);
  const matching = account.shippings
    .map((s) => s.shipping)
    .filter((s) =>
      (date === undefined || s.shippingDate === date) &&
      (officeId === undefined || s.office.id === String(officeId)) &&
      (typeId === undefined || s.shipping_type.id === String(typeId)) &&
      (state === undefined || s.state === state) &&
      (documentId === undefined || s.guide.id === String(documentId)))
    .sort((a, b) => a.id - b.id);
  return page(url, base, matching, (s) => served(account, base, s, expand));
};

/** `GET /v1/shippings/{id}.json`; `expand=[guide,details]` puts the guide document and the first 25 lines in place of their links. */
export const readShipping = (account: CompanyAccount, url: URL, base: string, id: number): unknown => {
  const stored = account.shippings.find((s) => s.shipping.id === id) ?? fail(404, 'shipping not found');
  return served(account, base, stored.shipping, expansions(url));
};

export const readShippingDetails = (account: CompanyAccount, base: string, id: number) => {
  const stored = account.shippings.find((s) => s.shipping.id === id) ?? fail(404, 'shipping not found');
  return shippingDetails(account, base, stored.shipping);
};
