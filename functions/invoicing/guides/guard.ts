import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { table, tableName } from '../../../shared/table/client.ts';
import { ReadOutdatedError, type Write } from '../../../shared/table/transaction.ts';
import type { IntentRecord } from '../intent-record.ts';
import type { LocalState } from '../schemas.ts';

export const GUIDE_ENTITY = 'dispatch-guide';

/**
 * A stop's dispatch guide, in the route's partition (`GUIDE#{stopId}`): the guard that keeps one
 * live guide per stop (its Put is conditional), and what the stop shows of the guide. Every move
 * of the guide's intent rewrites it in the same transaction (state.ts), so its `localState` is
 * the intent's and the route reads its stops' guides with the one Query it already makes.
 */
export interface StopGuideRecord {
  tenantId: string;
  routeId: string;
  stopId: string;
  orderId: string;
  intentId: string;
  localState: LocalState;
  /** The folio, once the provider gave it. */
  number: string | null;
  /**
   * The route's vehicle plate, which the driver writes on the printed guide (SII Res. Ex. 51/2015;
   * the provider's API has no field for it). Null on guides made before it was kept.
   */
  plate: string | null;
  /**
   * The guide is another route's (the order's live guide, decisions 16: a re-planned order gets
   * none again): this item only shows it here, and its state is read from the intent.
   */
  adopted: boolean;
  updatedAt: string;
}

/** A guide that still counts for its stop: anything but cancelled or rejected. */
export const isLive = (guide: Pick<StopGuideRecord, 'localState'>): boolean => guide.localState !== 'cancelled' && guide.localState !== 'rejected';

/** Issued or held by the provider: the goods may travel with it. */
export const isIssued = (guide: Pick<StopGuideRecord, 'localState'>): boolean => guide.localState === 'issued' || guide.localState === 'provider_recorded';

export const toStopGuide = (item: Record<string, unknown>): StopGuideRecord => ({
  tenantId: item.tenantId as string,
  routeId: item.routeId as string,
  stopId: item.stopId as string,
  orderId: item.orderId as string,
  intentId: item.intentId as string,
  localState: item.localState as LocalState,
  number: (item.number as string | null | undefined) ?? null,
  plate: (item.plate as string | null | undefined) ?? null,
  adopted: item.adopted === true,
  updatedAt: item.updatedAt as string,
});

export const guideItem = (guide: StopGuideRecord) => ({ ...opsKeys.stopGuide(guide.tenantId, guide.routeId, guide.stopId), entity: GUIDE_ENTITY, ...guide });

/**
 * Claims the stop for a new guide: only when it has none, or when the one it has is `previous`
 * (its guide read as dead: cancelled and rejected are final). A concurrent claim makes the condition fail;
 * the request runs again and finds the winner's guide.
 */
export const claimStop = (guide: StopGuideRecord, previousIntentId: string | undefined): Write => claimGuard(guideItem(guide), previousIntentId);

/**
 * A guard's conditional Put (the stop's and the order's): only where none is, or where the one
 * there names `previousIntentId`. A failed condition is ReadOutdatedError: the request runs again.
 */
export const claimGuard = (item: Record<string, unknown>, previousIntentId: string | undefined): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: item,
      ...(previousIntentId
        ? { ConditionExpression: 'intentId = :previous', ExpressionAttributeValues: { ':previous': previousIntentId } }
        : { ConditionExpression: 'attribute_not_exists(pk)' }),
    },
  },
  onConditionFailed: () => new ReadOutdatedError(),
});

/**
 * The stop's copy of a guide intent's move. Conditioned on the guard still naming this intent: a
 * guard names another only after this one was cancelled or rejected, which no move leaves.
 */
export const guideMoveWrite = (record: IntentRecord): Write[] => {
  if (record.documentKind !== 'dispatch_guide' || !record.routeId || !record.stopId) return [];
  return [
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: opsKeys.stopGuide(record.tenantId, record.routeId, record.stopId),
          UpdateExpression: 'SET localState = :state, #number = :number, updatedAt = :at',
          ConditionExpression: 'intentId = :id',
          ExpressionAttributeNames: { '#number': 'number' },
          ExpressionAttributeValues: { ':state': record.localState, ':number': record.documentNumber ?? null, ':at': record.updatedAt, ':id': record.id },
        },
      },
    },
  ];
};

export const findStopGuide = async (tenantId: string, routeId: string, stopId: string): Promise<StopGuideRecord | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.stopGuide(tenantId, routeId, stopId), ConsistentRead: true }));
  return Item ? toStopGuide(Item) : undefined;
};
