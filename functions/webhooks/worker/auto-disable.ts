import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { nowIso } from '../../../shared/clock.ts';
import { StateConflictError } from '../../../shared/errors.ts';
import { newId } from '../../../shared/ids.ts';
import { logger } from '../../../shared/logger.ts';
import { keys } from '../../../shared/table/keys.ts';
import { tableName } from '../../../shared/table/client.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { releaseActiveSlot } from '../active-destinations.ts';
import { startEndingPending } from '../pending-deliveries.ts';
import { disabledEvent } from '../operational-events.ts';
import type { EndpointRecord } from '../endpoint-record.ts';
import { DISABLE_AFTER_DEAD_DELIVERIES } from '../settings.ts';

/** The worker's action in the audit log when a destination disables itself (decisions 5 and 12). */
export const AUTO_DISABLE_AUDIT_ACTION = 'disableFailingWebhookEndpoint';

class NotFailingError extends StateConflictError {
  constructor() {
    super('The destination is not active with enough failures to disable.', 'not_failing');
  }
}

/**
 * After a delivery dies: at 20 dead deliveries in a row the destination disables itself
 * (decisions 5), and gives back its active slot in the same transaction. The condition makes
 * this idempotent, and a count already past 20 after a crash is caught by the next death. A
 * state change, so it moves `version` (a PATCH read before it gets 409).
 */
export const disableIfFailing = async (
  endpoint: Pick<EndpointRecord, 'tenantId' | 'id' | 'url'>,
  now: Date,
  options: { runId?: string; failures?: number } = {},
): Promise<boolean> => {
  const runId = options.runId ?? newId();
  const { tenantId, id: endpointId } = endpoint;
  try {
    // A change made by a job: its audit entry, with the system actor, commits with it.
    await commit([
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: keys.webhookEndpoint(tenantId, endpointId),
            UpdateExpression: 'SET #state = :disabled, disabledReason = :failures, version = version + :one, updatedAt = :now',
            ConditionExpression: '#state = :active AND consecutiveFailures >= :max',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':disabled': 'disabled', ':failures': 'failures', ':one': 1, ':now': nowIso(now), ':active': 'active', ':max': DISABLE_AFTER_DEAD_DELIVERIES },
          },
        },
        onConditionFailed: () => new NotFailingError(),
      },
      ...releaseActiveSlot(tenantId, endpointId, endpoint.url),
      auditWrite({ tenantId, actorId: SYSTEM_ACTOR_ID, action: AUTO_DISABLE_AUDIT_ACTION, resourceId: endpointId, requestId: runId, now }),
      // The company's other destinations hear of it in the same commit: once, and only if it happened.
      disabledEvent({ tenantId, endpointId, url: endpoint.url, consecutiveFailures: options.failures ?? DISABLE_AFTER_DEAD_DELIVERIES }, now).write,
    ]);
  } catch (error) {
    if (error instanceof NotFailingError) return false;
    throw error;
  }
  logger.warn('webhook destination disabled after repeated failures', { tenantId, endpointId });
  await startEndingPending(tenantId, endpointId, 'destination_disabled');
  return true;
};
