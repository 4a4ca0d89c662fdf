import * as v from 'valibot';
import { DateTime, Limit, pageOf, Uuid } from '../../shared/http/schemas.ts';
import { ExternalId, PartyRecord, ProviderVersion, StockLevelRecord, VariantRecord, VersionKind } from './record-schemas.ts';


export const importStreams = ['variants', 'stock_levels', 'parties'] as const;
export const ImportStream = v.picklist(importStreams);
export type ImportStream = v.InferOutput<typeof ImportStream>;

const Sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));

/** The specification's conflict shape; the values of stream, kind and origin are decisions 10's. */
export const Conflict = v.pipe(
  v.object({
    id: Uuid,
    connectionId: Uuid,
    externalId: ExternalId,
    causationId: Uuid,
    stream: ImportStream,
    currentVersion: v.nullable(ProviderVersion),
    incomingVersion: v.nullable(ProviderVersion),
    currentVersionKind: v.nullable(VersionKind),
    incomingVersionKind: VersionKind,
    currentSha256: v.nullable(Sha256),
    incomingSha256: Sha256,
    kind: v.picklist(['stale_version', 'version_reused', 'invalid_record']),
    origin: v.picklist(['sandbox-v1', 'provider-chile-v1']),
    createdAt: DateTime,
  }),
  v.title('RecordConflict'),
);
export type Conflict = v.InferOutput<typeof Conflict>;

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
export const ImportCounts = v.object({ seen: Count, created: Count, updated: Count, unchanged: Count, conflicts: Count });
export type ImportCounts = v.InferOutput<typeof ImportCounts>;

export const Import = v.pipe(
  v.object({
    id: Uuid,
    connectionId: Uuid,
    streams: v.array(ImportStream),
    state: v.picklist(['queued', 'running', 'succeeded', 'failed']),
    counts: ImportCounts,
    error: v.nullable(v.object({ code: v.string(), message: v.string() })),
    createdAt: DateTime,
    finishedAt: v.nullable(DateTime),
  }),
  v.title('RecordImport'),
);
export type Import = v.InferOutput<typeof Import>;

export const ImportBody = v.strictObject({
  streams: v.optional(v.pipe(v.array(ImportStream), v.minLength(1, 'must name at least one stream'), v.checkItems((item, index, list) => list.indexOf(item) === index, 'must not repeat a stream'))),
});

export const ImportParams = v.strictObject({ id: Uuid, importId: Uuid });

/** Records and conflicts: `after`, `limit` (at most 100) and the `externalId` filter (decisions 10). */
export const RecordQuery = v.strictObject({ after: v.optional(Uuid), limit: Limit, externalId: v.optional(ExternalId) });

export const ImportPage = v.pipe(pageOf(Import), v.title('RecordImportPage'));
export const VariantPage = v.pipe(pageOf(VariantRecord), v.title('ProductVariantRecordPage'));
export const StockLevelPage = v.pipe(pageOf(StockLevelRecord), v.title('StockLevelRecordPage'));
export const PartyPage = v.pipe(pageOf(PartyRecord), v.title('PartyRecordPage'));
export const ConflictPage = v.pipe(pageOf(Conflict), v.title('RecordConflictPage'));
