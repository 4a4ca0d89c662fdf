import type { CompanyAccount, IdSequence, StoredDetail } from './company.ts';
import { fail, isInteger, isObject, relation } from './http.ts';
import type { FakeDocument, FakeDocumentType, FakeReference } from './types.ts';

export interface IssueContext { account: CompanyAccount; ids: IdSequence; base: string; nowSeconds: number }

const DAY = 86_400;

export const documentType = (account: CompanyAccount, id: unknown): FakeDocumentType => {
  if (!isInteger(id)) fail(400, 'documentTypeId must be an integer');
  const type = account.catalogue.documentTypes.find((t) => t.id === id && t.state === 0);
  return type ?? fail(400, `document type ${String(id)} not found`);
};

export const checkOffice = (account: CompanyAccount, id: unknown): number => {
  if (!isInteger(id)) fail(400, 'officeId must be an integer');
  if (!account.catalogue.offices.some((o) => o.id === id && o.state === 0)) fail(400, `office ${String(id)} not found`);
  return id as number;
};

/** Provider-chile.md: the day at 00:00 UTC in Unix seconds; anything else is a caller's bug. */
export const checkEmissionDate = (value: unknown): number => {
  if (!isInteger(value) || value < 0 || value % DAY !== 0) fail(400, 'emissionDate must be Unix seconds of a day at 00:00 UTC');
  return value as number;
};

export const checkSalesId = (value: unknown): string | null => {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') fail(400, 'salesId must be a non-empty string');
  return value as string;
};

const parseTaxIds = (account: CompanyAccount, value: unknown, line: number): number[] => {
  if (value === undefined || value === null || value === '') return [];
  if (typeof value !== 'string') fail(400, `details[${line}].taxId must be a string such as "[1]"`);
  let ids: unknown;
  try {
    ids = JSON.parse(value as string);
  } catch {
    ids = undefined;
  }
  if (!Array.isArray(ids) || !ids.every(isInteger)) fail(400, `details[${line}].taxId must be a string such as "[1]"`);
  for (const id of ids as number[]) {
    if (!account.catalogue.taxes.some((t) => t.id === id && t.state === 0)) fail(400, `tax ${id} not found`);
  }
  return ids as number[];
};

const percentage = (account: CompanyAccount, taxId: number) => Number(account.catalogue.taxes.find((t) => t.id === taxId)!.percentage);

/** Totals as the tax authority computes them: tax on the sum of the taxed nets, rounded to pesos. */
export const totals = (account: CompanyAccount, lines: StoredDetail[]) => {
  let net = 0;
  let exempt = 0;
  const taxedBy = new Map<number, number>();
  for (const { detail, taxIds } of lines) {
    if (taxIds.length === 0) exempt += detail.netAmount;
    else net += detail.netAmount;
    for (const id of taxIds) taxedBy.set(id, (taxedBy.get(id) ?? 0) + detail.netAmount);
  }
  const tax = [...taxedBy].reduce((sum, [id, base]) => sum + Math.round((base * percentage(account, id)) / 100), 0);
  return { netAmount: net, exemptAmount: exempt, taxAmount: tax, totalAmount: net + exempt + tax };
};

export const line = (
  account: CompanyAccount, ids: IdSequence, base: string, documentId: number, index: number,
  input: { quantity: number; netUnitValue: number; taxIds: number[]; variantId?: number; comment?: string; relatedDetailId?: number },
): StoredDetail => {
  const id = ids.take('detail');
  const netAmount = Math.round(input.quantity * input.netUnitValue);
  const rate = input.taxIds.reduce((sum, t) => sum + percentage(account, t), 0);
  const taxAmount = Math.round((netAmount * rate) / 100);
  const variant = input.variantId === undefined ? undefined : account.catalogue.variants.find((v) => v.id === input.variantId)!;
  return {
    documentId,
    taxIds: input.taxIds,
    detail: {
      href: `${base}/v1/documents/${documentId}/details/${id}.json`,
      id,
      lineNumber: index + 1,
      quantity: input.quantity,
      netUnitValue: input.netUnitValue,
      totalUnitValue: Math.round(input.netUnitValue * (1 + rate / 100)),
      netAmount,
      taxAmount,
      totalAmount: netAmount + taxAmount,
      netDiscount: 0,
      totalDiscount: 0,
      variant: variant ? { href: `${base}/v1/variants/${variant.id}.json`, id: variant.id, description: variant.description, code: variant.code } : null,
      note: input.comment ?? '',
      relatedDetailId: input.relatedDetailId ?? 0,
    },
  };
};

/** Stores a document with its lines and answers it as the provider does. */
export const storeDocument = (
  { account, ids, base, nowSeconds }: IssueContext,
  fields: { documentId: number; type: FakeDocumentType; officeId: number; emissionDate: number; salesId: string | null; clientId: number | null },
  lines: StoredDetail[],
): FakeDocument => {
  const { documentId: id, type } = fields;
  const token = (id * 2654435761 >>> 0).toString(16).padStart(8, '0') + 'f4e';
  const electronic = type.isElectronicDocument === 1;
  const document: FakeDocument = {
    href: `${base}/v1/documents/${id}.json`,
    id,
    emissionDate: fields.emissionDate,
    expirationDate: fields.emissionDate,
    generationDate: nowSeconds,
    number: account.nextFolio(type.id),
    salesId: fields.salesId,
    ...totals(account, lines),
    urlPublicView: `${base}/view/${token}`,
    urlPdf: `${base}/view/${token}.pdf`,
    token,
    state: 0,
    informedSii: electronic ? account.informedSii : 0,
    responseMsgSii: electronic && account.informedSii === 2 ? 'Rechazado por el SII (proveedor de prueba)' : null,
    document_type: relation(base, 'document_types', type.id),
    office: relation(base, 'offices', fields.officeId),
    client: fields.clientId === null ? null : relation(base, 'clients', fields.clientId),
    details: { href: `${base}/v1/documents/${id}/details.json` },
    document_taxes: { href: `${base}/v1/documents/${id}/document_taxes.json` },
    references: { href: `${base}/v1/documents/${id}/references.json` },
  };
  account.documents.push(document);
  account.details.set(id, lines);
  return document;
};

/**
 * `POST /v1/documents.json`. A known salesId with the same document type answers the earlier
 * document (200) before anything else is checked, so a retry never fails on what the first
 * attempt changed (stock it dispatched).
 */
export const issueDocument = (context: IssueContext, body: unknown): { created: boolean; document: FakeDocument } => {
  const { account, ids, base } = context;
  if (!isObject(body)) return fail(400, 'the body must be a JSON object');
  const type = documentType(account, body.documentTypeId);
  const salesId = checkSalesId(body.salesId);
  const earlier = salesId === null ? undefined : account.documents.find((d) => d.salesId === salesId && d.document_type.id === String(type.id));
  if (earlier) return { created: false, document: earlier };
  if (type.isCreditNote === 1) fail(400, 'credit notes are issued through /v1/returns.json');
  const officeId = checkOffice(account, body.officeId);
  const emissionDate = checkEmissionDate(body.emissionDate);
  if (body.declareSii !== undefined && body.declareSii !== 0 && body.declareSii !== 1) fail(400, 'declareSii must be 0 or 1');
  if (body.dispatch !== undefined && body.dispatch !== 0 && body.dispatch !== 1) fail(400, 'dispatch must be 0 or 1');
  const needsClient = (type.useClient ?? (type.codeSii === '33' || type.codeSii === '34' ? 1 : 0)) === 1;
  const clientId = checkClient(account, body.clientId, needsClient ? type.name : null);
  const inputs = checkDetails(account, body.details);
  const references = checkReferences(body.references);
  if (body.dispatch === 1) dispatch(account, officeId, inputs);
  const documentId = ids.take('document');
  const lines = inputs.map((input, i) => line(account, ids, base, documentId, i, input));
  if (references.length > 0) account.references.set(documentId, references);
  return { created: true, document: storeDocument(context, { documentId, type, officeId, emissionDate, salesId, clientId }, lines) };
};

/** `clientId`: an existing client, or absent where the type does not need one (`requiredFor` names the type that does). */
export const checkClient = (account: CompanyAccount, value: unknown, requiredFor: string | null): number | null => {
  if (value !== undefined && value !== null) {
    if (!isInteger(value) || !account.catalogue.clients.some((c) => c.id === value)) fail(400, `client ${String(value)} not found`);
    return value as number;
  }
  if (requiredFor !== null) fail(400, `clientId is required for ${requiredFor}`);
  return null;
};

export interface DetailInput { variantId?: number; comment?: string; quantity: number; netUnitValue: number; taxIds: number[] }

/** A document's or shipping's `details`: each an existing `variantId` or a `comment`, quantity > 0, netUnitValue >= 0. */
export const checkDetails = (account: CompanyAccount, details: unknown): DetailInput[] => {
  if (!Array.isArray(details) || details.length === 0) fail(400, 'details must be a non-empty list');
  return (details as unknown[]).map((raw, i) => {
    if (!isObject(raw)) return fail(400, `details[${i}] must be an object`);
    const { variantId, comment, quantity, netUnitValue } = raw;
    if (variantId !== undefined) {
      if (!isInteger(variantId) || !account.catalogue.variants.some((v) => v.id === variantId)) fail(400, `details[${i}].variantId ${String(variantId)} not found`);
    } else if (typeof comment !== 'string' || comment.trim() === '') fail(400, `details[${i}] needs variantId or comment`);
    if (typeof quantity !== 'number' || !(quantity > 0)) fail(400, `details[${i}].quantity must be a positive number`);
    if (typeof netUnitValue !== 'number' || !(netUnitValue >= 0)) fail(400, `details[${i}].netUnitValue must be a number >= 0`);
    const taxIds = parseTaxIds(account, raw.taxId, i);
    return { variantId: variantId as number | undefined, comment: variantId === undefined ? (comment as string) : undefined, quantity: quantity as number, netUnitValue: netUnitValue as number, taxIds };
  });
};

/**
 * `references` as provider-chile.md (corrected) and the provider's documentation send them:
 * `{number, referenceDate, codeSii, reason}` (the folio as text or an integer, the date at 00:00
 * UTC, the SII code an integer). A reference without `codeSii` (the old `dteCodeSii` included) is 400.
 */
const checkReferences = (value: unknown): FakeReference[] => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(400, 'references must be a list');
  return value.map((raw, i) => {
    if (!isObject(raw)) return fail(400, `references[${i}] must be an object`);
    const number = typeof raw.number === 'string' && raw.number.trim() !== '' ? raw.number : isInteger(raw.number) && raw.number > 0 ? String(raw.number) : fail(400, `references[${i}].number must be the referenced folio`);
    if (!isInteger(raw.referenceDate) || raw.referenceDate < 0 || raw.referenceDate % DAY !== 0) fail(400, `references[${i}].referenceDate must be Unix seconds of a day at 00:00 UTC`);
    if (!isInteger(raw.codeSii) || raw.codeSii <= 0) fail(400, `references[${i}].codeSii must be an SII document code`);
    if (raw.reason !== undefined && typeof raw.reason !== 'string') fail(400, `references[${i}].reason must be a string`);
    return { number, referenceDate: raw.referenceDate as number, codeSii: raw.codeSii as number, reason: (raw.reason as string | undefined) ?? '' };
  });
};

/** `dispatch: 1` takes the variants' stock in the office; a line without stock refuses the document. */
export const dispatch = (account: CompanyAccount, officeId: number, inputs: { variantId?: number; quantity: number }[]) => {
  const wanted = new Map<number, number>();
  for (const { variantId, quantity } of inputs) if (variantId !== undefined) wanted.set(variantId, (wanted.get(variantId) ?? 0) + quantity);
  const stocks = [...wanted].map(([variantId, quantity]) => {
    const stock = account.catalogue.stocks.find((s) => Number(s.variant.id) === variantId && Number(s.office.id) === officeId);
    if (!stock || stock.quantityAvailable < quantity) fail(400, `not enough stock of variant ${variantId} in office ${officeId}`);
    return { stock: stock!, quantity };
  });
  for (const { stock, quantity } of stocks) {
    stock.quantity -= quantity;
    stock.quantityAvailable -= quantity;
  }
};
