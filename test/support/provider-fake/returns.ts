import { checkEmissionDate, checkOffice, checkSalesId, documentType, line, storeDocument, type IssueContext } from './documents.ts';
import { fail, isInteger, isObject, relation } from './http.ts';
import type { FakeReturn } from './types.ts';

/**
 * `POST /v1/returns.json`: a credit note against lines of an earlier document. A known salesId
 * answers the earlier return (200); a line credited beyond what remains of it refuses the whole
 * return (400) and changes nothing.
 */
export const issueReturn = (context: IssueContext, body: unknown): { created: boolean; answer: FakeReturn } => {
  const { account, ids, base, nowSeconds } = context;
  if (!isObject(body)) return fail(400, 'the body must be a JSON object');
  const salesId = checkSalesId(body.salesId);
  const earlier = salesId === null ? undefined : account.returns.find((r) => r.salesId === salesId);
  if (earlier) return { created: false, answer: earlier };
  const type = documentType(account, body.documentTypeId);
  if (type.isCreditNote !== 1) fail(400, `document type ${type.id} is not a credit note`);
  const officeId = checkOffice(account, body.officeId);
  const emissionDate = checkEmissionDate(body.emissionDate);
  if (!isInteger(body.referenceDocumentId)) fail(400, 'referenceDocumentId must be an integer');
  const reference = account.document(body.referenceDocumentId as number) ?? fail(404, `document ${String(body.referenceDocumentId)} not found`);
  const referenceType = account.catalogue.documentTypes.find((t) => String(t.id) === reference.document_type.id);
  if (referenceType?.isCreditNote === 1) fail(400, 'a credit note cannot be returned');
  if (typeof body.motive !== 'string' || body.motive.trim() === '') fail(400, 'motive is required');
  const clientId = reference.client === null ? null : Number(reference.client.id);
  if (body.clientId !== undefined && body.clientId !== null && body.clientId !== clientId) fail(400, 'clientId differs from the referenced document');
  if (!Array.isArray(body.details) || body.details.length === 0) fail(400, 'details must be a non-empty list');
  const referenceLines = account.details.get(reference.id) ?? [];
  const pending = new Map<number, number>();
  const inputs = (body.details as unknown[]).map((raw, i) => {
    if (!isObject(raw)) return fail(400, `details[${i}] must be an object`);
    const original = referenceLines.find((l) => l.detail.id === raw.documentDetailId) ?? fail(400, `details[${i}].documentDetailId is not a line of document ${reference.id}`);
    if (typeof raw.quantity !== 'number' || !(raw.quantity > 0)) fail(400, `details[${i}].quantity must be a positive number`);
    const already = (account.returned.get(original.detail.id) ?? 0) + (pending.get(original.detail.id) ?? 0);
    if (already + (raw.quantity as number) > original.detail.quantity) {
      fail(400, `details[${i}]: ${raw.quantity} is more than the ${original.detail.quantity - already} that remain of line ${original.detail.id}`);
    }
    pending.set(original.detail.id, (pending.get(original.detail.id) ?? 0) + (raw.quantity as number));
    return { original, quantity: raw.quantity as number };
  });
  for (const [detailId, quantity] of pending) account.returned.set(detailId, (account.returned.get(detailId) ?? 0) + quantity);
  const documentId = ids.take('document');
  const lines = inputs.map(({ original, quantity }, i) =>
    line(account, ids, base, documentId, i, {
      quantity,
      netUnitValue: original.detail.netUnitValue,
      taxIds: original.taxIds,
      variantId: original.detail.variant?.id,
      comment: original.detail.variant ? undefined : original.detail.note,
      relatedDetailId: original.detail.id,
    }),
  );
  const creditNote = storeDocument(context, { documentId, type, officeId, emissionDate, salesId, clientId }, lines);
  const id = ids.take('return');
  const answer: FakeReturn = {
    href: `${base}/v1/returns/${id}.json`,
    id,
    salesId,
    motive: body.motive as string,
    returnDate: nowSeconds,
    amount: creditNote.totalAmount,
    type: isInteger(body.type) ? body.type : 0,
    priceAdjustment: isInteger(body.priceAdjustment) ? body.priceAdjustment : 0,
    editTexts: isInteger(body.editTexts) ? body.editTexts : 0,
    office: relation(base, 'offices', officeId),
    reference_document: relation(base, 'documents', reference.id),
    credit_note: relation(base, 'documents', creditNote.id),
    details: { href: `${base}/v1/returns/${id}/details.json` },
  };
  account.returns.push(answer);
  return { created: true, answer };
};
