import { StateConflictError } from '../../../shared/errors.ts';
import { tableName } from '../../../shared/table/client.ts';
import { tenantPk } from '../../../shared/table/keys.ts';
import type { Write } from '../../../shared/table/transaction.ts';

/** decisions 18: at most this many previews `queued` or `solving` per tenant. */
export const MAX_ACTIVE_PREVIEWS = 5;

/** The tenant's count of previews not yet ended, beside its other items (one item, one partition). */
export const activePreviewsKey = (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'PREVIEWACTIVE' });

/**
 * The flag on a preview counted in activePreviewsKey: only such a preview gives its place back
 * when it ends, so previews asked before the count existed never drive it below zero.
 */
export const COUNTED_FLAG = 'countedActive';

export class PreviewsLimitError extends StateConflictError {
  constructor() {
    super(`A company may have at most ${MAX_ACTIVE_PREVIEWS} previews queued or solving; ask again when one has ended.`, 'previews_limit');
  }
}

/**
 * Joins the new preview's transaction: the count goes up only while under the cap, in its own
 * condition, so concurrent requests cannot pass it together (a lost race is a transaction
 * conflict, and the request runs again reading the new count).
 */
export const takeActivePlace = (tenantId: string): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: activePreviewsKey(tenantId),
      UpdateExpression: 'SET active = if_not_exists(active, :zero) + :one, entity = :entity',
      ConditionExpression: 'attribute_not_exists(active) OR active < :max',
      ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':max': MAX_ACTIVE_PREVIEWS, ':entity': 'previewActiveCount' },
    },
  },
  onConditionFailed: () => new PreviewsLimitError(),
});

/** Joins the transaction that ends a counted preview (ready or failed): its place is free again. */
export const giveBackActivePlace = (tenantId: string): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: activePreviewsKey(tenantId),
      // No condition: a failed one would keep the preview from ending. Only a counted preview
      // gives its place back, once (its end is itself conditional), so the count stays >= 0.
      UpdateExpression: 'SET active = if_not_exists(active, :one) - :one',
      ExpressionAttributeValues: { ':one': 1 },
    },
  },
});
