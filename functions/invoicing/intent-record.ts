import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetConsistent } from '../records/batch-get.ts';
import { NotFoundError, StateConflictError, VersionMismatchError } from '../../shared/errors.ts';
import type { DocumentReference } from '../../shared/ports/billing-provider/port.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { keys, tenantPk } from '../../shared/table/keys.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import type { Write } from '../../shared/table/transaction.ts';
import type { InvoiceIntent, InvoiceLine, LocalState, Transfer } from './schemas.ts';
import type { ShippingLookup } from './guides/lookup-state.ts';

export const INTENT_ENTITY = 'invoiceIntent';

/** A stored line: the API's fields plus the provider ids resolved from the records at create. */
export interface StoredLine extends InvoiceLine {
  /** The variant's provider id, when the line names a catalogue item. */
  variantExternalId: string | null;
}

/**
 * What an issue fixes the first time it commits `submitting`, and every later attempt reuses:
 * the provider keeps one document per salesId and document type, so a retry with the same type
 * can only ever find the first document, never make a second.
 */
export interface Submission {
  documentTypeId: string;
  officeId: string;
  /** Unix seconds, 00:00 UTC of the tenant's day: the provider's emissionDate. */
  emissionDate: number;
  firstSubmittedAt: string;
  /** When the latest attempt committed `submitting` (a reconcile leaves a fresh one alone). */
  submittedAt: string;
  /**
   * When the latest attempt's send ended: its answer, or its deadline (on the issuer's clock, as
   * `submittedAt`). Null while it runs and when the issuer died before recording it.
   */
  sendEndedAt?: string | null;
}

/** Where a dispatch guide's goods go (provider-chile.md, "Dispatch guides"); empty strings when the order has none. */
export interface ShippingTarget {
  address: string;
  municipality: string;
  city: string;
  recipient: string;
}

export interface IntentRecord extends Omit<InvoiceIntent, 'documentNumber' | 'dispatch' | 'dispatchGuideIds'> {
  lines: StoredLine[];
  /** The provider document's folio (`number`), once known, for every kind; absent on items stored before issue 17. */
  documentNumber?: string | null;
  /** A dispatch guide's order, route, stop and transfer (issue 17); absent for other kinds. */
  orderId?: string;
  routeId?: string;
  stopId?: string;
  transfer?: Transfer;
  shipping?: ShippingTarget;
  /** An internal transfer's receiving office (decisions 16): sent as destinationOfficeId, and then no client. */
  destinationOfficeId?: string | null;
  /** A guide's shipping type and its look-up at the provider (docs/guides-exactly-once.md). */
  shippingLookup?: ShippingLookup | null;
  /** The party's provider id (the document's clientId). */
  customerExternalId: string | null;
  submission: Submission | null;
  /**
   * The provider's return, once it accepted one for this credit note: from then on nothing but
   * the provider's document can settle it (a later failure leaves it unknown, never rejected).
   */
  providerReturnId?: string | null;
  /** When the reconciler should look next (null when nothing is left to learn). */
  reconcileDueAt: string | null;
  reconcileAttempts: number;
  /** An invoice made from dispatch guides: the guides (absent on others) and their references, fixed at create. */
  dispatchGuideIds?: string[];
  guideReferences?: DocumentReference[];
  /** The provider's emissionDate fixed at create (Unix seconds, 00:00 UTC): an invoice of an earlier month's guides (decisions 16). */
  emissionDay?: number;
}

export const notFound = () => new NotFoundError('No invoice intent with this id.');

export const toIntent = (record: IntentRecord): InvoiceIntent => ({
  id: record.id,
  tenantId: record.tenantId,
  connectionId: record.connectionId,
  documentKind: record.documentKind,
  customerId: record.customerId,
  creditedInvoiceId: record.creditedInvoiceId,
  correlationId: record.correlationId,
  currency: record.currency,
  minorUnitScale: record.minorUnitScale,
  totalMinor: record.totalMinor,
  localState: record.localState,
  providerState: record.providerState,
  taxState: record.taxState,
  externalDocumentId: record.externalDocumentId,
  providerVersion: record.providerVersion,
  documentNumber: record.documentNumber ?? null,
  dispatch: record.documentKind === 'dispatch_guide' && record.orderId && record.routeId && record.stopId && record.transfer
    ? { orderId: record.orderId, routeId: record.routeId, stopId: record.stopId, transfer: record.transfer }
    : null,
  version: record.version,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
  dispatchGuideIds: record.dispatchGuideIds ?? [],
});

export const toLine = ({ variantExternalId: _v, ...line }: StoredLine): InvoiceLine => line;

const fromItem = (item: Record<string, unknown>): IntentRecord => {
  const { pk: _pk, sk: _sk, entity: _e, gsi2pk: _g, gsi2sk: _gs, ...record } = item;
  return record as unknown as IntentRecord;
};

const toItem = (record: IntentRecord) => ({
  ...keys.invoiceIntent(record.tenantId, record.id),
  ...(record.reconcileDueAt ? keys.invoiceReconcileDue(record.tenantId, record.connectionId, record.id, record.reconcileDueAt) : {}),
  entity: INTENT_ENTITY,
  ...record,
});

export const findIntent = async (tenantId: string, intentId: string): Promise<IntentRecord | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.invoiceIntent(tenantId, intentId), ConsistentRead: true }));
  return Item ? fromItem(Item) : undefined;
};

export const getIntent = async (tenantId: string, intentId: string): Promise<IntentRecord> => {
  const record = await findIntent(tenantId, intentId);
  if (!record) throw notFound();
  return record;
};

/** Intents by id, strongly consistent (absent ids are left out). */
export const intentsById = async (tenantId: string, intentIds: string[]): Promise<Map<string, IntentRecord>> => {
  const items = await batchGetConsistent([...new Set(intentIds)].map((id) => keys.invoiceIntent(tenantId, id)));
  return new Map(items.map((item) => [item.id as string, fromItem(item)]));
};

/** A page of intents; `localState` keeps those in that state (the guides held `unknown` for an admin), reading at most 1,000 items a page. */
export const listIntents = (tenantId: string, after: string | undefined, limit: number, localState?: LocalState): Promise<Page<IntentRecord>> =>
  queryPage(
    {
      pk: tenantPk(tenantId),
      prefix: keys.invoiceIntentPrefix,
      after,
      limit,
      ...(localState ? { filter: { FilterExpression: 'localState = :state', ExpressionAttributeValues: { ':state': localState } }, maxItemsRead: 1_000 } : {}),
    },
    fromItem,
    (r) => r.id,
  );

export const insertIntent = (record: IntentRecord): Write => ({
  item: { Put: { TableName: tableName(), Item: toItem(record), ConditionExpression: 'attribute_not_exists(pk)' } },
});

/**
 * Writes a changed intent if it is still at `expected` (version and state), so two requests
 * that read the same intent cannot both move it: the loser gets 409.
 */
export const saveIntent = (record: IntentRecord, expected: { version: number; localState: LocalState }): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: toItem(record),
      ConditionExpression: 'attribute_exists(pk) AND version = :version AND localState = :state',
      ExpressionAttributeValues: { ':version': expected.version, ':state': expected.localState },
    },
  },
  onConditionFailed: (old) => {
    if (!old) return notFound();
    if (old.version !== expected.version) return new VersionMismatchError(old.version as number, expected.version);
    return new StateConflictError(`The invoice intent is ${String(old.localState)} now.`, 'invalid_state');
  },
});

export const checkVersion = (record: IntentRecord, version: number): void => {
  if (record.version !== version) throw new VersionMismatchError(record.version, version);
};
