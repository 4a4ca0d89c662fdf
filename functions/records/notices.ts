import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { isIP } from 'node:net';
import * as v from 'valibot';
import { epochSeconds } from '../../shared/clock.ts';
import { countInWindow } from '../../shared/rate-limit.ts';
import { normaliseRut } from '../../shared/chile/rut.ts';
import { importQueue } from '../../shared/ports/import-queue.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';

/** A notice's changes in the audit log: the operation's own id, acted by the system. */
export const NOTICE_AUDIT_ACTION = 'receiveProviderNotice';
/** Notices name companies of the provider only (the sandbox sends none). */
export const NOTICE_ORIGIN = 'provider-chile-v1';
/** Repeats of one company, topic and resource within this time are one notice. */
export const NOTICE_REPEAT_SECONDS = 60;
/** A notice not read within this time is dropped: the hourly import settles what it named. */
export const NOTICE_KEEP_SECONDS = 3600;
/** A drain marker this old lost its message (a crash between the marker and the send): the next notice queues another. */
export const DRAIN_STALE_SECONDS = 300;

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

/** What a notice asks to read again: one variant, or one variant's stock (in one office or all). */
export type NoticeTarget = { topic: 'variant'; variantId: string } | { topic: 'stock'; variantId: string; officeId: string | null };

/** Notices per source network and minute (the WAF rate rule sits in front in the cloud as well). */
const perMinute = (): number => Number(process.env.PROVIDER_NOTICE_RATE_LIMIT_PER_MINUTE ?? 300) || 300;

/** An IPv6 address as its eight 16-bit groups (`::` expanded, an IPv4 tail as two groups). */
const ipv6Groups = (address: string): number[] => {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (side: string) => (side === '' ? [] : side.split(':').map((group) => parseInt(group, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
};

/**
 * The network a notice came from, as rates and budgets count it (issue 29): an IPv4 address
 * (/32), or the /64 of an IPv6 address, since one IPv6 host is handed a whole /64 and could
 * otherwise speak from 2^64 addresses. An IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export const noticeSource = (viewerAddress: string): string => {
  const address = viewerAddress.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const kind = isIP(address);
  if (kind === 4) return `${address}/32`;
  if (kind !== 6) return address;
  const groups = ipv6Groups(address.toLowerCase());
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}/32`;
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
};

/** A fixed one-minute window per source network, counted in the table so every instance sees it. */
export const countNotice = (viewerAddress: string, now: Date): Promise<void> => countInWindow((minute) => keys.noticeRateWindow(noticeSource(viewerAddress), minute), perMinute(), now);

/** `variant=2100&office=1` (the provider's notices) or `variantid`/`officeid` in the resource's query. */
const resourceQuery = (resource: string | undefined): URLSearchParams => {
  try {
    return new URL(resource ?? '', 'http://provider.invalid').searchParams;
  } catch {
    return new URLSearchParams();
  }
};

const decimalId = (value: string | null | undefined): string | null => (value && /^[0-9]{1,12}$/.test(value) ? value : null);

/** The resource a notice names; undefined for other topics and malformed resources (nothing to read). */
export const noticeTarget = (notice: Notice): NoticeTarget | undefined => {
  const query = resourceQuery(notice.resource);
  if (notice.topic === 'stock') {
    const variantId = decimalId(query.get('variant') ?? query.get('variantid') ?? notice.resourceId);
    if (!variantId) return undefined;
    return { topic: 'stock', variantId, officeId: decimalId(query.get('office') ?? query.get('officeid')) };
  }
  if (notice.topic === 'variant' && notice.resourceId) return { topic: 'variant', variantId: notice.resourceId };
  return undefined;
};

export const noticeKey = (target: NoticeTarget): string => (target.topic === 'stock' ? `stock#${target.variantId}#${target.officeId ?? '*'}` : `variant#${target.variantId}`);

const conditionFailed = async (write: () => Promise<unknown>): Promise<boolean> => {
  try {
    await write();
    return false;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return true;
    throw error;
  }
};

/**
 * Takes the company's drain marker: true when no drain message is queued (or its marker went
 * stale), so the caller sends one. One drain message per company at a time, whatever the notices.
 */
export const claimDrain = async (clientCode: string, now: Date): Promise<boolean> =>
  !(await conditionFailed(() =>
    table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.providerNoticeDrain(NOTICE_ORIGIN, clientCode),
        UpdateExpression: 'SET queuedAt = :now, expiresAt = :expires, entity = :entity',
        ConditionExpression: 'attribute_not_exists(queuedAt) OR queuedAt <= :stale',
        ExpressionAttributeValues: { ':now': epochSeconds(now), ':stale': epochSeconds(now) - DRAIN_STALE_SECONDS, ':expires': epochSeconds(now) + NOTICE_KEEP_SECONDS, ':entity': 'providerNoticeDrain' },
      }),
    ),
  ));

/** Keeps the marker of a drain message that waits for the next minute from going stale. */
export const touchDrain = (clientCode: string, now: Date): Promise<unknown> =>
  table().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.providerNoticeDrain(NOTICE_ORIGIN, clientCode),
      UpdateExpression: 'SET queuedAt = :now, expiresAt = :expires, entity = :entity',
      ExpressionAttributeValues: { ':now': epochSeconds(now), ':expires': epochSeconds(now) + NOTICE_KEEP_SECONDS, ':entity': 'providerNoticeDrain' },
    }),
  );

/**
 * A provider notice is only a hint (unsigned, never retried). The request records it and answers:
 * no provider call, no wait. The company's connections read it again later, in the import
 * worker, within the company's budget (notice-drain.ts). Returns what became of it; nothing the
 * sender is told.
 */
export const recordNotice = async (input: unknown, now: Date, requestId: string, viewerAddress = 'unknown'): Promise<'ignored' | 'repeat' | 'recorded' | 'queued'> => {
  const source = noticeSource(viewerAddress);
  const parsed = v.safeParse(Notice, input);
  if (!parsed.success) return 'ignored';
  const clientCode = normaliseRut(String(parsed.output.cpnId));
  const target = noticeTarget(parsed.output);
  if (!clientCode || !target) return 'ignored';
  // Only companies some connection imported: a stranger's made-up RUTs leave nothing behind.
  const { Items = [] } = await table().send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.providerCompanyPartition(NOTICE_ORIGIN, clientCode) }, Limit: 1 }),
  );
  if (Items.length === 0) return 'ignored';
  const at = epochSeconds(now);
  const repeat = await conditionFailed(() =>
    table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.providerNotice(NOTICE_ORIGIN, clientCode, noticeKey(target)),
        // A notice recorded anew starts over: every connection reads it again.
        UpdateExpression: 'SET entity = :entity, clientCode = :company, noticeTarget = :target, receivedAt = :at, requestId = :request, doneBy = :none, expiresAt = :expires, #source = :source',
        ConditionExpression: 'attribute_not_exists(receivedAt) OR receivedAt <= :repeat',
        ExpressionAttributeValues: {
          ':entity': 'providerNotice',
          ':company': clientCode,
          ':target': target,
          ':at': at,
          ':request': requestId,
          ':none': [],
          ':expires': at + NOTICE_KEEP_SECONDS,
          ':repeat': at - NOTICE_REPEAT_SECONDS,
          ':source': source,
        },
        ExpressionAttributeNames: { '#source': 'source' },
      }),
    ),
  );
  if (repeat) return 'repeat';
  // Its place in the order of arrival: the drain reads the oldest first, each source in turn (notice-drain.ts).
  const key = noticeKey(target);
  await table().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.providerNoticeQueued(NOTICE_ORIGIN, clientCode, now.getTime(), key), entity: 'providerNoticeQueued', noticeKey: key, receivedAt: at, source, expiresAt: at + NOTICE_KEEP_SECONDS },
    }),
  );
  if (!(await claimDrain(clientCode, now))) return 'recorded';
  await importQueue().send({ kind: 'notices', origin: NOTICE_ORIGIN, clientCode });
  return 'queued';
};
