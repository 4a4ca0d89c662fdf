import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { auditWrite, SYSTEM_ACTOR_ID } from '../../shared/audit/entry.ts';
import { epochSeconds } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { logger } from '../../shared/logger.ts';
import { ProviderUnavailableError } from '../../shared/ports/billing-provider/errors.ts';
import type { BillingProvider, ProviderSession } from '../../shared/ports/billing-provider/port.ts';
import { billingProvider } from '../../shared/ports/billing-provider/registry.ts';
import { importQueue, type NoticeDrainMessage } from '../../shared/ports/import-queue.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';
import { queryAll } from '../../shared/table/query-all.ts';
import { commit, TransactionConflictError, type Write } from '../../shared/table/transaction.ts';
import { findConnectionRecord, sessionOf, type ConnectionRecord } from '../integrations/connection-record.ts';
import type { ImportStream } from './api-schemas.ts';
import { commitConflicts } from './conflict-store.ts';
import { providerCall } from './imports/provider-pages.ts';
import { claimDrain, NOTICE_AUDIT_ACTION, touchDrain, NOTICE_KEEP_SECONDS, NOTICE_ORIGIN, type NoticeTarget } from './notices.ts';
import { judgeBatch } from './observe.ts';
import { mapStock, mapVariant } from './provider-mapping.ts';
import { RecordMovedError } from './record-store.ts';
import type { RecordFields } from './record-schemas.ts';

/** Provider reads a company's notices may cost a minute, whatever the number of its connections or sources. */
export const noticeReadsPerMinute = (): number => Number(process.env.PROVIDER_NOTICE_READS_PER_MINUTE ?? 10) || 10;
/**
 * Of those, what the notices of one source network (an IPv4 /32, an IPv6 /64) may cost a minute
 * (issue 29): a party that knows a company's RUT cannot spend the company's whole minute from one
 * network, and the provider's own notices are read beside its.
 */
export const noticeReadsPerSource = (): number => Number(process.env.PROVIDER_NOTICE_READS_PER_SOURCE ?? 3) || 3;

interface PendingNotice {
  sk: string;
  noticeTarget: NoticeTarget;
  receivedAt: number;
  requestId: string;
  doneBy: string[];
}

/** A notice in the order of arrival (`Q#…`), pointing at its `N#` item. */
interface QueuedNotice {
  sk: string;
  noticeKey: string;
  receivedAt: number;
  source: string;
}

export type DrainOutcome = 'drained' | 'budget_spent';
type ReadOutcome = 'read' | 'source_spent' | 'company_spent';

/** Thrown when the notice was recorded anew while it was being read: the new one starts over. */
class NoticeRenewedError extends Error {}
class SourceBudgetSpentError extends Error {}
class CompanyBudgetSpentError extends Error {}

/** The active connections that imported this company (the index entry is written by every import). */
const connectionsOf = async (clientCode: string): Promise<ConnectionRecord[]> => {
  const found: ConnectionRecord[] = [];
  for await (const item of queryAll({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.providerCompanyPartition(NOTICE_ORIGIN, clientCode) } })) {
    const connection = await findConnectionRecord(item.tenantId as string, item.connectionId as string);
    if (connection && connection.state === 'active' && connection.sealedToken && connection.origin === NOTICE_ORIGIN) found.push(connection);
  }
  return found;
};

const QUEUE_PAGE = 100;

/** A page of the company's notices in the order they arrived (oldest first). */
const queuedPage = async (clientCode: string, startKey?: Record<string, unknown>, limit = QUEUE_PAGE) => {
  const page = await table().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.providerNoticePartition(NOTICE_ORIGIN, clientCode), ':prefix': keys.providerNoticeQueuePrefix },
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey: startKey,
    }),
  );
  return { items: (page.Items ?? []) as unknown as QueuedNotice[], next: page.LastEvaluatedKey };
};

const findNotice = async (clientCode: string, noticeKey: string): Promise<PendingNotice | undefined> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.providerNotice(NOTICE_ORIGIN, clientCode, noticeKey), ConsistentRead: true }));
  return Item as PendingNotice | undefined;
};

const budgetWrite = (key: Record<string, string>, minute: number, max: number, spent: () => Error): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'ADD readsSpent :one SET expiresAt = if_not_exists(expiresAt, :expires), entity = :entity',
      ConditionExpression: 'attribute_not_exists(readsSpent) OR readsSpent < :max',
      ExpressionAttributeValues: { ':one': 1, ':max': max, ':expires': (minute + 2) * 60, ':entity': 'providerNoticeBudget' },
    },
  },
  onConditionFailed: spent,
});

/** One provider read from the source's share and the company's budget for this minute, both or neither. */
const takeRead = async (clientCode: string, source: string, now: Date): Promise<ReadOutcome> => {
  const minute = Math.floor(epochSeconds(now) / 60);
  try {
    await commit([
      budgetWrite(keys.providerNoticeSourceBudget(NOTICE_ORIGIN, clientCode, minute, source), minute, noticeReadsPerSource(), () => new SourceBudgetSpentError()),
      budgetWrite(keys.providerNoticeBudget(NOTICE_ORIGIN, clientCode, minute), minute, noticeReadsPerMinute(), () => new CompanyBudgetSpentError()),
    ]);
    return 'read';
  } catch (error) {
    if (error instanceof SourceBudgetSpentError) return 'source_spent';
    if (error instanceof CompanyBudgetSpentError) return 'company_spent';
    // Two reads of one company at once: not a spent budget; the next minute's message tries again.
    if (error instanceof TransactionConflictError) return 'source_spent';
    throw error;
  }
};

/** What the notice names, read again from the provider (one request, no 429 waited out: the budget counts requests). */
const readTarget = async (target: NoticeTarget, provider: BillingProvider, session: ProviderSession, connectionId: string): Promise<{ stream: ImportStream; observations: RecordFields[] }> => {
  if (target.topic === 'stock') {
    const filter = { variantId: target.variantId, officeId: target.officeId ?? undefined };
    const page = await providerCall(connectionId, () => provider.listStocks(session, { offset: 0 }, filter), 0);
    return { stream: 'stock_levels', observations: page.items.map(mapStock) };
  }
  const variant = await providerCall(connectionId, () => provider.getVariant(session, target.variantId), 0);
  return { stream: 'variants', observations: variant ? [mapVariant(variant)] : [] };
};

const connectionKey = (connection: ConnectionRecord): string => `${connection.tenantId}#${connection.id}`;

/** The notice's progress: this connection read it. Conditioned on the notice not being recorded anew meanwhile. */
const markDone = (clientCode: string, notice: PendingNotice, connection: ConnectionRecord): Write => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: { pk: keys.providerNoticePartition(NOTICE_ORIGIN, clientCode), sk: notice.sk },
      UpdateExpression: 'SET doneBy = list_append(doneBy, :key)',
      ConditionExpression: 'receivedAt = :read',
      ExpressionAttributeValues: { ':key': [connectionKey(connection)], ':read': notice.receivedAt },
    },
  },
  onConditionFailed: () => new NoticeRenewedError(),
});

/**
 * One connection reads the notice's resource and the version rule judges it, as an import would;
 * its changes commit with the notice's progress. True when this connection is done with the
 * notice (also when it can never read it: revoked, token refused); false to try again later.
 */
const refresh = async (clientCode: string, notice: PendingNotice, connection: ConnectionRecord, now: Date): Promise<boolean> => {
  try {
    const fetched = await readTarget(notice.noticeTarget, billingProvider(connection.origin), await sessionOf(connection), connection.id);
    const scope = { tenantId: connection.tenantId, connectionId: connection.id, stream: fetched.stream };
    // The notice is the cause of what it changes: its own id, as an import's id is for an import.
    const judged = await judgeBatch({ scope, origin: connection.origin, causationId: newId(), now, observations: fetched.observations });
    await commitConflicts(judged.conflictWrites);
    // Each commit names the connection whose records it changed; the provider is no member, so the system acts.
    const audit = () => auditWrite({ tenantId: connection.tenantId, actorId: SYSTEM_ACTOR_ID, action: NOTICE_AUDIT_ACTION, resourceId: connection.id, requestId: notice.requestId, now });
    const chunks: Write[][] = [];
    for (let i = 0; i < judged.writes.length; i += 97) chunks.push([...judged.writes.slice(i, i + 97), audit()]);
    if (chunks.length === 0) chunks.push([]);
    chunks[chunks.length - 1]!.push(markDone(clientCode, notice, connection));
    for (const writes of chunks) await commit(writes);
    return true;
  } catch (error) {
    // Worth another read within the budget: the provider may answer later; a record or the notice changed meanwhile.
    const again = error instanceof ProviderUnavailableError || error instanceof NoticeRenewedError || error instanceof RecordMovedError || error instanceof TransactionConflictError;
    logger.warn('provider notice not applied', { connectionId: connection.id, topic: notice.noticeTarget.topic, again, error: error as Error });
    if (again) return false;
    // Refused, token rejected, revoked: this connection never reads it; the hourly import settles the rest.
    await commit([markDone(clientCode, notice, connection)]).catch(() => undefined);
    return true;
  }
};

const deleteQueued = (clientCode: string, queued: QueuedNotice) =>
  table().send(new DeleteCommand({ TableName: tableName(), Key: { pk: keys.providerNoticePartition(NOTICE_ORIGIN, clientCode), sk: queued.sk } }));

/** Reads one queued notice through every connection that has not yet, each read from the budgets. */
const readNotice = async (clientCode: string, queued: QueuedNotice, connections: ConnectionRecord[], now: Date): Promise<ReadOutcome> => {
  const notice = await findNotice(clientCode, queued.noticeKey);
  // Read and deleted already, or recorded anew since (a newer entry stands for it): this entry is done.
  if (!notice || notice.receivedAt !== queued.receivedAt) {
    await deleteQueued(clientCode, queued);
    return 'read';
  }
  let finished = epochSeconds(now) - notice.receivedAt > NOTICE_KEEP_SECONDS;
  if (!finished) {
    const done = new Set(notice.doneBy ?? []);
    for (const connection of connections) {
      if (done.has(connectionKey(connection))) continue;
      const budget = await takeRead(clientCode, queued.source, now);
      if (budget !== 'read') return budget;
      if (await refresh(clientCode, notice, connection, now)) done.add(connectionKey(connection));
    }
    finished = connections.every((connection) => done.has(connectionKey(connection)));
  }
  if (finished) {
    // Unless it was recorded anew meanwhile: then the new notice is read in turn.
    await table()
      .send(new DeleteCommand({ TableName: tableName(), Key: keys.providerNotice(NOTICE_ORIGIN, clientCode, queued.noticeKey), ConditionExpression: 'receivedAt = :read', ExpressionAttributeValues: { ':read': notice.receivedAt } }))
      .catch((error) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
    await deleteQueued(clientCode, queued);
  }
  return 'read';
};

/**
 * One pass over the company's notices, oldest first. A source whose share of the minute is spent
 * is passed over (its notices wait for the next minute) and the others are read on; the pass ends
 * when the company's budget is spent or the notices are.
 */
const drainPass = async (clientCode: string, connections: ConnectionRecord[], now: Date): Promise<'empty' | 'waiting' | 'budget_spent'> => {
  const spent = new Set<string>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await queuedPage(clientCode, startKey);
    for (const queued of page.items) {
      if (spent.has(queued.source)) continue;
      const outcome = await readNotice(clientCode, queued, connections, now);
      if (outcome === 'company_spent') return 'budget_spent';
      if (outcome === 'source_spent') spent.add(queued.source);
    }
    startKey = page.next;
  } while (startKey);
  return spent.size > 0 ? 'waiting' : 'empty';
};

/**
 * The import worker's handling of a company's notices: each pending notice, oldest first, is read
 * through each connection of the company, one provider read at a time from the company's budget
 * (10 a minute), of which the notices of one source network may spend 3. Once the budget is spent,
 * or only notices of spent sources are left, the message comes back at the next minute. Once
 * nothing is pending the drain marker is let go, and looked at again, so a notice recorded
 * meanwhile is never left behind.
 */
export const drainNotices = async (message: NoticeDrainMessage, now = new Date()): Promise<DrainOutcome> => {
  const { clientCode } = message;
  const connections = await connectionsOf(clientCode);
  for (;;) {
    const outcome = await drainPass(clientCode, connections, now);
    if (outcome !== 'empty') {
      // Keeps the marker fresh while its message waits for the next minute.
      await touchDrain(clientCode, now);
      await importQueue().send(message, 61 - (epochSeconds(now) % 60));
      return 'budget_spent';
    }
    await table().send(new DeleteCommand({ TableName: tableName(), Key: keys.providerNoticeDrain(NOTICE_ORIGIN, clientCode) }));
    if ((await queuedPage(clientCode, undefined, 1)).items.length === 0 || !(await claimDrain(clientCode, now))) return 'drained';
  }
};
