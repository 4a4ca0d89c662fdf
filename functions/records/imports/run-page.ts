import { auditWrite, SYSTEM_ACTOR_ID } from '../../../shared/audit/entry.ts';
import { nowIso } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { ProblemError } from '../../../shared/errors.ts';
import { logger } from '../../../shared/logger.ts';
import { ProviderUnavailableError } from '../../../shared/ports/billing-provider/errors.ts';
import { billingProvider } from '../../../shared/ports/billing-provider/registry.ts';
import { importQueue, type ImportMessage } from '../../../shared/ports/import-queue.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { findConnectionRecord, sessionOf } from '../../integrations/connection-record.ts';
import { commitConflicts } from '../conflict-store.ts';
import { addCounts, judgeBatch } from '../observe.ts';
import { findImportRecord, finishWrites, ImportMovedError, progressWrite, type ImportRecord } from './import-record.ts';
import { readProviderPage } from './provider-pages.ts';

/** Deliveries of one message before a provider that keeps failing fails the import (SQS redrives after 5). */
export const MAX_RECEIVES = 4;

export type PageOutcome = 'applied' | 'finished' | 'redelivery' | 'resent' | 'failed';

const messageOf = (record: ImportRecord): ImportMessage => ({ tenantId: record.tenantId, connectionId: record.connectionId, importId: record.id, step: record.step });

/** The worker's action in the audit log (decisions 12: a job names its own): one entry per committed page. */
export const IMPORT_PAGE_AUDIT_ACTION = 'importProviderPage';

/** The page's audit entry: the import is the resource it changes, the system the actor, this run the request. */
const pageAudit = (record: ImportRecord, now: Date) =>
  auditWrite({ tenantId: record.tenantId, actorId: SYSTEM_ACTOR_ID, action: IMPORT_PAGE_AUDIT_ACTION, resourceId: record.id, requestId: newId(), now });

const finished = (record: ImportRecord): boolean => record.state === 'succeeded' || record.state === 'failed';

/** Ends the import as failed, in one transaction with its lock and its event. */
const fail = async (record: ImportRecord, error: { code: string; message: string }, now: Date): Promise<PageOutcome> => {
  const next: ImportRecord = { ...record, state: 'failed', error, finishedAt: nowIso(now), updatedAt: nowIso(now), step: record.step + 1 };
  try {
    await commit([progressWrite(next, record.step), ...finishWrites(next, now), pageAudit(record, now)]);
  } catch (error) {
    if (error instanceof ImportMovedError) return 'redelivery';
    throw error;
  }
  logger.warn('import failed', { importId: record.id, code: error.code });
  return 'failed';
};

/**
 * One message of an import: one provider page read, mapped and judged, and committed together
 * with the import's progress in transactions conditioned on the step the message names. A
 * message whose step is already committed only makes sure the next message exists (the worker may
 * have died between the commit and the send); any other is a stale redelivery and does nothing.
 */
export const runImportPage = async (message: ImportMessage, receiveCount = 1, now = new Date()): Promise<PageOutcome> => {
  const record = await findImportRecord(message.tenantId, message.connectionId, message.importId);
  if (!record || finished(record)) return 'redelivery';
  if (record.step === message.step + 1) {
    await importQueue().send(messageOf(record));
    return 'resent';
  }
  if (record.step !== message.step) return 'redelivery';
  try {
    return await applyPage(record, receiveCount, now);
  } catch (error) {
    // The last delivery never leaves the import wedged (running, its lock held, its message in the
    // dead letters): it fails the import, which releases the lock, so a new import can start.
    if (receiveCount < MAX_RECEIVES || error instanceof ImportMovedError) throw error;
    logger.error('import page failed on its last delivery', { importId: record.id, error: error as Error });
    return fail(record, { code: 'import_page_failed', message: 'A page of the import kept failing; the import stopped. Start a new one.' }, now);
  }
};

/** Reads, judges and commits the page the import stands at. */
const applyPage = async (record: ImportRecord, receiveCount: number, now: Date): Promise<PageOutcome> => {
  const connection = await findConnectionRecord(record.tenantId, record.connectionId);
  if (!connection || connection.state !== 'active' || !connection.sealedToken) {
    return fail(record, { code: 'connection_revoked', message: 'The connection was revoked during the import.' }, now);
  }
  const stream = record.streams[record.streamIndex]!;
  let page;
  try {
    const session = await sessionOf(connection);
    page = await readProviderPage(billingProvider(connection.origin), session, connection.id, stream, record.offset);
  } catch (error) {
    // "Try later" is retried by redelivery; a definitive answer (refused, token rejected) ends the import.
    if (error instanceof ProviderUnavailableError && receiveCount < MAX_RECEIVES) throw error;
    if (error instanceof ProblemError) return fail(record, { code: error.code, message: error.message }, now);
    throw error;
  }

  const scope = { tenantId: record.tenantId, connectionId: record.connectionId, stream };
  const judged = await judgeBatch({ scope, origin: record.origin, causationId: record.id, now, observations: page.observations });
  const lastOfStream = page.nextOffset === null;
  const lastOfImport = lastOfStream && record.streamIndex === record.streams.length - 1;
  const next: ImportRecord = {
    ...record,
    state: lastOfImport ? 'succeeded' : 'running',
    counts: addCounts(record.counts, judged.counts),
    step: record.step + 1,
    streamIndex: lastOfStream ? record.streamIndex + 1 : record.streamIndex,
    offset: lastOfStream ? 0 : page.nextOffset!,
    updatedAt: nowIso(now),
    finishedAt: lastOfImport ? nowIso(now) : null,
  };
  await commitConflicts(judged.conflictWrites);
  try {
    await commit([progressWrite(next, record.step), ...judged.writes, ...(lastOfImport ? finishWrites(next, now) : []), pageAudit(record, now)]);
  } catch (error) {
    // Another delivery of this message committed the page first: it sends the next message.
    if (error instanceof ImportMovedError) return 'redelivery';
    throw error;
  }
  if (lastOfImport) return 'finished';
  await importQueue().send(messageOf(next));
  return 'applied';
};
