import * as v from 'valibot';
import { nowIso } from '../../shared/clock.ts';
import type { ProviderOrigin } from '../../shared/ports/billing-provider/port.ts';
import type { Write } from '../../shared/table/transaction.ts';
import type { Conflict, ImportCounts } from './api-schemas.ts';
import { contentSha256 } from './canonical.ts';
import { conflictKey, conflictWrites, recordedConflictKeys } from './conflict-store.ts';
import { MAPPING_VERSION } from './provider-mapping.ts';
import { putRecord, readStored, recordId, type RecordScope, type StoredRecord } from './record-store.ts';
import { ProviderVersion, streams, VersionKind, type RecordFields } from './record-schemas.ts';
import { judge } from './version-rule.ts';

export const emptyCounts = (): ImportCounts => ({ seen: 0, created: 0, updated: 0, unchanged: 0, conflicts: 0 });

export const addCounts = (a: ImportCounts, b: ImportCounts): ImportCounts => ({
  seen: a.seen + b.seen,
  created: a.created + b.created,
  updated: a.updated + b.updated,
  unchanged: a.unchanged + b.unchanged,
  conflicts: a.conflicts + b.conflicts,
});

export interface ObservationBatch {
  scope: RecordScope;
  origin: ProviderOrigin;
  /** The import (or notice) that made these observations: the records' causationId. */
  causationId: string;
  now: Date;
  /** Mapped provider items, not yet checked against the specification's limits. */
  observations: RecordFields[];
}

export interface Judged {
  /** The records' writes, each conditioned on what was read. */
  writes: Write[];
  /** New conflicts with their guards, committed before the records (commitConflicts). */
  conflictWrites: Write[];
  counts: ImportCounts;
  /** The conflicts recorded now; one met before (same record, kind and content) is counted, not recorded again. */
  conflicts: Conflict[];
}

type Loose = Record<string, unknown>;

const versionOrNull = (value: unknown): string | null => (v.is(ProviderVersion, value) ? (value as string) : null);
const clip = (text: string, max: number): string => (text.length > max ? text.slice(0, max) : text) || '-';

/**
 * The version rule of decisions 10 over a batch of observations of one stream: reads what is
 * stored (consistently), judges each observation, and returns the writes that make the outcome,
 * each conditioned on what was read. A conflict is its own item and never touches the record.
 */
export const judgeBatch = async (batch: ObservationBatch): Promise<Judged> => {
  const { scope, origin, causationId, now } = batch;
  const stored = await readStored(scope, batch.observations.map((o) => String(o.externalId)));
  // Later observations of the same externalId in one batch are judged against the earlier ones.
  const current = new Map(stored);
  const recordWrites = new Map<string, Write>();
  const met = new Map<string, Omit<Conflict, 'id'>>();
  const counts = emptyCounts();
  const importedAt = nowIso(now);

  const conflict = (fields: Omit<Conflict, 'id' | 'connectionId' | 'causationId' | 'stream' | 'origin' | 'createdAt'>) => {
    const full = { ...fields, connectionId: scope.connectionId, causationId, stream: scope.stream, origin, createdAt: importedAt };
    met.set(conflictKey(full), full);
    counts.conflicts++;
  };

  for (const observation of batch.observations) {
    counts.seen++;
    const externalId = String(observation.externalId);
    const sha256 = contentSha256(observation);
    const before = current.get(externalId);
    const currentSide = {
      currentVersion: before?.externalVersion ?? null,
      currentVersionKind: before?.versionKind ?? null,
      currentSha256: before?.sha256 ?? null,
    };
    if (!v.is(streams[scope.stream], observation)) {
      conflict({
        externalId: clip(externalId, 180),
        kind: 'invalid_record',
        ...currentSide,
        incomingVersion: versionOrNull((observation as Loose).externalVersion),
        incomingVersionKind: v.is(VersionKind, (observation as Loose).versionKind) ? ((observation as Loose).versionKind as VersionKind) : 'local_observation',
        incomingSha256: sha256,
      });
      continue;
    }
    const verdict = judge(before ?? null, { externalVersion: observation.externalVersion, versionKind: observation.versionKind, sha256 });
    if (verdict.apply === 'unchanged') {
      counts.unchanged++;
      continue;
    }
    if (verdict.apply === 'conflict') {
      conflict({ externalId, kind: verdict.kind, ...currentSide, incomingVersion: observation.externalVersion, incomingVersionKind: observation.versionKind, incomingSha256: sha256 });
      continue;
    }
    const record = {
      ...observation,
      id: recordId(scope, externalId),
      connectionId: scope.connectionId,
      causationId,
      observationVersion: before ? before.observationVersion + 1 : 1,
      mappingVersion: MAPPING_VERSION,
      origin,
      importedAt,
      sha256,
    } as StoredRecord;
    current.set(externalId, record);
    // One write per record in a transaction: the last observation wins, conditioned on what was read.
    recordWrites.set(record.id, putRecord(scope, record, stored.get(externalId)));
    if (verdict.apply === 'create') counts.created++;
    else counts.updated++;
  }
  const recorded = met.size > 0 ? await recordedConflictKeys(scope.tenantId, scope.connectionId, [...met.keys()], now) : new Set<string>();
  const made = [...met.entries()].filter(([key]) => !recorded.has(key)).map(([, fields]) => conflictWrites(scope.tenantId, fields, now));
  return { writes: [...recordWrites.values()], conflictWrites: made.flatMap((m) => m.writes), counts, conflicts: made.map((m) => m.conflict) };
};
