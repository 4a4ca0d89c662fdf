import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { StateConflictError } from '../../errors.ts';
import { table, tableName } from '../../table/client.ts';
import { keys } from '../../table/keys.ts';
import { commit, type Write } from '../../table/transaction.ts';
import type { CreateShippingInput, DocumentDetail, DocumentReference, ProviderDocument, ProviderReturn, ProviderSession, ProviderShipping, ShippingDetail, ShippingFilter, ShippingLines } from './port.ts';

export type SandboxOwner = NonNullable<ProviderSession['owner']>;

export interface StoredDocument {
  document: ProviderDocument;
  details: DocumentDetail[];
  /** documentDetailId → quantity credited by returns. */
  credited: Record<string, number>;
  version: number;
  /** What the document was issued with in `references` (absent on documents stored before). */
  references?: DocumentReference[];
}

/** Another write took the salesId (or the document changed) first: the caller reads what won. */
export class SandboxRaceError extends StateConflictError {
  constructor() {
    super('The sandbox document changed meanwhile.', 'concurrent_update');
  }
}

const key = (owner: SandboxOwner, sk: string) => keys.sandboxItem(owner.tenantId, owner.connectionId, sk);
const DOC = (id: string) => `DOC#${id}`;
const SALE = (documentTypeId: string, salesId: string) => `SALE#${documentTypeId}#${salesId}`;
const RETURN = (salesId: string) => `RET#${salesId}`;
const SHIPPING = (salesId: string) => `SHIP#${salesId}`;

const get = async (owner: SandboxOwner, sk: string): Promise<Record<string, unknown> | undefined> =>
  (await table().send(new GetCommand({ TableName: tableName(), Key: key(owner, sk), ConsistentRead: true }))).Item;

const put = (owner: SandboxOwner, sk: string, item: Record<string, unknown>, condition: string, values?: Record<string, unknown>): Write => ({
  item: { Put: { TableName: tableName(), Item: { ...key(owner, sk), entity: 'sandboxDocument', ...item }, ConditionExpression: condition, ...(values ? { ExpressionAttributeValues: values } : {}) } },
  onConditionFailed: () => new SandboxRaceError(),
});

/** A new shipping as the provider answers it (empty text as null), with the lines it was sent with. */
export const shippingOf = (id: string, guideId: string, input: CreateShippingInput): ProviderShipping => ({
  id,
  guideId,
  shippingTypeId: input.shippingTypeId,
  officeId: input.officeId,
  shippingDate: input.emissionDate,
  address: input.address || null,
  municipality: input.municipality || null,
  city: input.city || null,
  recipient: input.recipient || null,
  details: wholeLines(input.details.map((line) => ({ quantity: line.quantity, variantId: line.variantId ?? null, note: line.variantId ? null : (line.comment ?? null) }))),
});

/** The lines as the provider expands them: at most this many, with `count` (provider-chile.md). */
export const EXPANDED_LINES = 25;

const wholeLines = (items: ShippingDetail[]): ShippingLines => ({ items, count: items.length, offset: 0, invalid: [] });

/** A stored shipping's lines, all of them (shippings stored before lines were paged kept a plain list). */
export const storedLines = (shipping: ProviderShipping): ShippingDetail[] => {
  const details = shipping.details as ShippingLines | ShippingDetail[] | null | undefined;
  return Array.isArray(details) ? details : (details?.items ?? []);
};

/**
 * sandbox-v1's documents, returns and shippings of one connection, in the table: a re-issue in another
 * function (or after a restart) meets the first document, as at the real provider.
 */
export const sandboxDocuments = {
  document: async (owner: SandboxOwner, id: string): Promise<StoredDocument | undefined> => (await get(owner, DOC(id))) as StoredDocument | undefined,

  bySale: async (owner: SandboxOwner, documentTypeId: string, salesId: string): Promise<StoredDocument | undefined> => {
    const sale = await get(owner, SALE(documentTypeId, salesId));
    return sale ? sandboxDocuments.document(owner, sale.documentId as string) : undefined;
  },

  returnBySale: async (owner: SandboxOwner, salesId: string): Promise<ProviderReturn | undefined> => (await get(owner, RETURN(salesId)))?.value as ProviderReturn | undefined,

  shippingBySale: async (owner: SandboxOwner, salesId: string): Promise<ProviderShipping | undefined> => (await get(owner, SHIPPING(salesId)))?.value as ProviderShipping | undefined,

  /** `count` new ids, and the next folio of the document type (the provider's numbers). */
  nextIds: async (owner: SandboxOwner, count: number, documentTypeId: string): Promise<{ ids: string[]; folio: string }> => {
    const folio = `folio${documentTypeId.replace(/[^0-9A-Za-z]/g, '')}`;
    const { Attributes } = await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key(owner, 'SEQ'),
        UpdateExpression: 'ADD nextId :count, #folio :one',
        ExpressionAttributeNames: { '#folio': folio },
        ExpressionAttributeValues: { ':count': count, ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const last = Number(Attributes!.nextId);
    return { ids: Array.from({ length: count }, (_, i) => String(last - count + 1 + i)), folio: String(Attributes![folio]) };
  },

  /** The document and its salesId guard together; SandboxRaceError when the salesId is taken. */
  add: (owner: SandboxOwner, stored: StoredDocument): Promise<void> =>
    commit([
      put(owner, SALE(stored.document.documentTypeId!, stored.document.salesId!), { documentId: stored.document.id }, 'attribute_not_exists(pk)'),
      put(owner, DOC(stored.document.id), { ...stored }, 'attribute_not_exists(pk)'),
    ]),

  /** A return: its guard, its credit note, and the credited document's new credited quantities (if unchanged since read). */
  addReturn: (owner: SandboxOwner, salesId: string, value: ProviderReturn, note: StoredDocument, reference: StoredDocument): Promise<void> =>
    commit([
      put(owner, RETURN(salesId), { value }, 'attribute_not_exists(pk)'),
      put(owner, SALE(note.document.documentTypeId!, salesId), { documentId: note.document.id }, 'attribute_not_exists(pk)'),
      put(owner, DOC(note.document.id), { ...note }, 'attribute_not_exists(pk)'),
      put(owner, DOC(reference.document.id), { ...reference, version: reference.version + 1 }, 'version = :version', { ':version': reference.version }),
    ]),

  /** A shipping: its salesId guard and its guide (a document with its own salesId guard), together. */
  addShipping: (owner: SandboxOwner, salesId: string, value: ProviderShipping, guide: StoredDocument): Promise<void> =>
    commit([
      put(owner, SHIPPING(salesId), { value }, 'attribute_not_exists(pk)'),
      put(owner, SALE(guide.document.documentTypeId!, salesId), { documentId: guide.document.id }, 'attribute_not_exists(pk)'),
      put(owner, DOC(guide.document.id), { ...guide }, 'attribute_not_exists(pk)'),
    ]),

  /** The connection's shippings of one day, office and type, ids ascending (`GET /v1/shippings.json`'s filters). */
  shippingsOf: async (owner: SandboxOwner, filter: ShippingFilter): Promise<ProviderShipping[]> =>
    (await sandboxDocuments.recorded(owner)).shippings
      .filter((s) => s.shippingDate === filter.shippingDate && s.officeId === filter.officeId && s.shippingTypeId === filter.shippingTypeId)
      .sort((a, b) => Number(a.id) - Number(b.id)),

  /** A shipping with its guide document and lines, as `expand=[guide,details]` answers it. */
  expanded: async (owner: SandboxOwner, shipping: ProviderShipping): Promise<ProviderShipping> => ({
    ...shipping,
    guide: shipping.guideId ? ((await sandboxDocuments.document(owner, shipping.guideId))?.document ?? null) : null,
    details: { items: storedLines(shipping).slice(0, EXPANDED_LINES), count: storedLines(shipping).length, offset: 0, invalid: [] },
  }),

  /** Everything the connection holds (tests and the local stack's pages read it). */
  recorded: async (owner: SandboxOwner): Promise<{ documents: ProviderDocument[]; returns: ProviderReturn[]; shippings: ProviderShipping[] }> => {
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await table().send(
        new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': key(owner, '').pk }, ExclusiveStartKey: startKey, ConsistentRead: true }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    const documents = items.filter((i) => String(i.sk).startsWith('DOC#')).map((i) => (i as unknown as StoredDocument).document);
    return {
      documents: documents.sort((a, b) => Number(a.id) - Number(b.id)),
      returns: items.filter((i) => String(i.sk).startsWith('RET#')).map((i) => i.value as ProviderReturn),
      shippings: items.filter((i) => String(i.sk).startsWith('SHIP#')).map((i) => i.value as ProviderShipping),
    };
  },
};
