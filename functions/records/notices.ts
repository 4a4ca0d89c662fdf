import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { auditWrite, SYSTEM_ACTOR_ID } from '../../shared/audit/entry.ts';
import { newId } from '../../shared/ids.ts';
import { countInWindow } from '../../shared/rate-limit.ts';
import { normaliseRut } from '../../shared/chile/rut.ts';
import type { BillingProvider, ProviderSession } from '../../shared/ports/billing-provider/port.ts';
import { billingProvider } from '../../shared/ports/billing-provider/registry.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';
import { commit } from '../../shared/table/transaction.ts';
import { findConnectionRecord, sessionOf, type ConnectionRecord } from '../integrations/connection-record.ts';
import type { ImportStream } from './api-schemas.ts';
import { providerCall } from './imports/provider-pages.ts';
import { judgeBatch } from './observe.ts';
import { mapStock, mapVariant } from './provider-mapping.ts';
import type { RecordFields } from './record-schemas.ts';

/** A notice's changes in the audit log: the operation's own id, acted by the system. */
export const NOTICE_AUDIT_ACTION = 'receiveProviderNotice';

/** What the provider sends (provider-chile.md, Notifications); anything else is ignored. */
const Id = v.union([v.pipe(v.number(), v.integer(), v.minValue(0), v.transform(String)), v.pipe(v.string(), v.regex(/^[0-9]{1,12}$/))]);
export const Notice = v.object({
  cpnId: v.union([v.number(), v.pipe(v.string(), v.maxLength(32))]),
  resource: v.optional(v.pipe(v.string(), v.maxLength(500))),
  resourceId: v.optional(Id),
  topic: v.pipe(v.string(), v.maxLength(40)),
  action: v.optional(v.unknown()),
  send: v.optional(v.unknown()),
});
export type Notice = v.InferOutput<typeof Notice>;

/** Notices per client address and minute (the WAF rate rule sits in front in the cloud as well). */
const perMinute = (): number => Number(process.env.PROVIDER_NOTICE_RATE_LIMIT_PER_MINUTE ?? 300) || 300;

/** A fixed one-minute window per client address, counted in the table so every instance sees it. */
export const countNotice = (sourceIp: string, now: Date): Promise<void> => countInWindow((minute) => keys.noticeRateWindow(sourceIp, minute), perMinute(), now);

/** The active connections that imported this company (the index entry is written by every import). */
const connectionsOf = async (clientCode: string): Promise<ConnectionRecord[]> => {
  const { Items = [] } = await table().send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.providerCompanyPartition('provider-chile-v1', clientCode) }, Limit: 50 }),
  );
  const found = await Promise.all(Items.map((item) => findConnectionRecord(item.tenantId as string, item.connectionId as string)));
  return found.filter((c): c is ConnectionRecord => !!c && c.state === 'active' && !!c.sealedToken && c.origin === 'provider-chile-v1');
};

/** `variant=2100&office=1` (the provider's notices) or `variantid`/`officeid` in the resource's query. */
const resourceQuery = (resource: string | undefined): URLSearchParams => {
  try {
    return new URL(resource ?? '', 'http://provider.invalid').searchParams;
  } catch {
    return new URLSearchParams();
  }
};

/** What the notice names, read again from the provider: the observations to judge. */
const refetch = async (notice: Notice, provider: BillingProvider, session: ProviderSession, connectionId: string): Promise<{ stream: ImportStream; observations: RecordFields[] } | undefined> => {
  const query = resourceQuery(notice.resource);
  if (notice.topic === 'stock') {
    const variantId = query.get('variant') ?? query.get('variantid') ?? notice.resourceId;
    if (!variantId || !/^[0-9]{1,12}$/.test(variantId)) return undefined;
    const officeId = query.get('office') ?? query.get('officeid') ?? undefined;
    const page = await providerCall(connectionId, () => provider.listStocks(session, { offset: 0 }, { variantId, officeId: officeId && /^[0-9]{1,12}$/.test(officeId) ? officeId : undefined }));
    return { stream: 'stock_levels', observations: page.items.map(mapStock) };
  }
  if (notice.topic === 'variant' && notice.resourceId) {
    const variant = await providerCall(connectionId, () => provider.getVariant(session, notice.resourceId!));
    return variant ? { stream: 'variants', observations: [mapVariant(variant)] } : undefined;
  }
  return undefined;
};

/**
 * A provider notice is only a hint (unsigned, never retried): the named resource is read again
 * through each connection of that company and judged by the version rule, as an import would.
 * Returns how many connections it refreshed; nothing the sender can learn from.
 */
export const applyNotice = async (input: unknown, now: Date, requestId: string): Promise<number> => {
  const parsed = v.safeParse(Notice, input);
  if (!parsed.success) return 0;
  const notice = parsed.output;
  const clientCode = normaliseRut(String(notice.cpnId));
  if (!clientCode) return 0;
  let refreshed = 0;
  for (const connection of await connectionsOf(clientCode)) {
    try {
      const provider = billingProvider(connection.origin);
      const fetched = await refetch(notice, provider, await sessionOf(connection), connection.id);
      if (!fetched || fetched.observations.length === 0) continue;
      const scope = { tenantId: connection.tenantId, connectionId: connection.id, stream: fetched.stream };
      // The notice is the cause of what it changes: its own id, as an import's id is for an import.
      const judged = await judgeBatch({ scope, origin: connection.origin, causationId: newId(), now, observations: fetched.observations });
      // Each commit names the connection whose records it changed; the provider is no member, so the system acts.
      const audit = () => auditWrite({ tenantId: connection.tenantId, actorId: SYSTEM_ACTOR_ID, action: NOTICE_AUDIT_ACTION, resourceId: connection.id, requestId, now });
      for (let i = 0; i < judged.writes.length; i += 99) await commit([...judged.writes.slice(i, i + 99), audit()]);
      refreshed++;
    } catch (error) {
      // The sender gets 202 whatever happens: the next import settles what this notice could not.
      // The logger is loaded here, not at module scope: the operations manifest imports this file,
      // and the logger fixes LOG_LEVEL when first loaded (the handlers load it after the settings).
      const { logger } = await import('../../shared/logger.ts');
      logger.warn('provider notice not applied', { connectionId: connection.id, topic: notice.topic, error: error as Error });
    }
  }
  return refreshed;
};
