import { epochSeconds } from '../../shared/clock.ts';
import { auditKeys } from '../../shared/table/keys-audit.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import type { AuditEntry, AuditQuery } from './schemas.ts';

type Filter = 'resourceId' | 'actorId' | 'action';

/**
 * Each filter has an index partition of its own; the most selective one given is queried and
 * any other filter is checked on its (already narrow) entries. Without a filter the tenant's
 * own partition is read. Both walk newest first, so `before` is the id of the last entry seen.
 */
const sources: { filter: Filter; index: 'gsi1' | 'gsi2' | 'gsi3'; pk: (tenantId: string, value: string) => string }[] = [
  { filter: 'resourceId', index: 'gsi1', pk: auditKeys.byResource },
  { filter: 'actorId', index: 'gsi2', pk: auditKeys.byActor },
  { filter: 'action', index: 'gsi3', pk: auditKeys.byAction },
];

const toEntry = (item: Record<string, unknown>): AuditEntry => ({
  id: item.id as string,
  tenantId: item.tenantId as string,
  actorId: item.actorId as string,
  requestId: item.requestId as string,
  resourceId: item.resourceId as string,
  action: item.action as string,
  outcome: item.outcome as AuditEntry['outcome'],
  createdAt: item.createdAt as string,
});

/** Entries past their 400 days are left out even before DynamoDB's TTL deletes them. */
export const listAuditEntries = (tenantId: string, query: AuditQuery, now: Date): Promise<Page<AuditEntry>> => {
  const source = sources.find((s) => query[s.filter] !== undefined);
  const others = sources.filter((s) => s !== source && query[s.filter] !== undefined);
  return queryPage(
    {
      pk: source ? source.pk(tenantId, query[source.filter]!) : auditKeys.partition(tenantId),
      prefix: auditKeys.prefix,
      index: source ? { name: source.index, tableKey: (id) => auditKeys.entry(tenantId, id) } : undefined,
      after: query.before,
      limit: query.limit,
      newestFirst: true,
      filter: {
        FilterExpression: ['expiresAt > :now', ...others.map((s) => `#${s.filter} = :${s.filter}`)].join(' AND '),
        ExpressionAttributeNames: others.length > 0 ? Object.fromEntries(others.map((s) => [`#${s.filter}`, s.filter])) : undefined,
        ExpressionAttributeValues: { ':now': epochSeconds(now), ...Object.fromEntries(others.map((s) => [`:${s.filter}`, query[s.filter]])) },
      },
    },
    toEntry,
    (entry) => entry.id,
  );
};
