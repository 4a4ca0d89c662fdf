import { PAGE_LIMIT, type BillingProvider, type ProviderSession, type ProviderShipping, type ShippingDetail } from '../../../shared/ports/billing-provider/port.ts';

/** What an expanded `details` holds at most (provider-chile.md): a full one without `count` may have more. */
export const EXPANDED_LINES_LIMIT = 25;
/**
 * Pages of `details.json` read for one shipping before its lines count as unreadable: a guide
 * carries at most 60 lines (decisions 16), two pages of 50; a provider that goes on past this is
 * not answering a guide's lines.
 */
const MAX_DETAIL_PAGES = 4;

export type ShippingLinesRead = { kind: 'read'; lines: ShippingDetail[] } | { kind: 'unreadable'; reason: string };

/**
 * A shipping's lines, whole (decisions 19): the expanded `details` first (at most 25 lines with
 * `count`), then the rest from `GET /v1/shippings/{id}/details.json` from where they stopped,
 * 50 a page. `unreadable` when the provider's answers cannot be made into the whole list: a line
 * that does not parse, a count that changes between pages or is never reached, more pages than a
 * guide can have. A failed read (5xx, 429, a timeout, a 4xx) throws: the look-up has not ended and
 * learns nothing from it.
 */
export const readLinesWhole = async (provider: BillingProvider, session: ProviderSession, shipping: ProviderShipping, signal?: AbortSignal): Promise<ShippingLinesRead> => {
  const first = shipping.details ?? { items: [], count: null, offset: 0, invalid: [] };
  if (first.invalid.length > 0) return { kind: 'unreadable', reason: first.invalid[0]!.reason };
  if (first.offset !== 0) return { kind: 'unreadable', reason: `expanded details start at offset ${first.offset}` };
  const lines = [...first.items];
  let count = first.count;
  // Not expanded at all, or a full expansion that does not say how many there are: read the list.
  let more = shipping.details ? (count === null ? first.items.length >= EXPANDED_LINES_LIMIT : lines.length < count) : true;
  for (let pages = 0; more; pages++) {
    if (pages >= MAX_DETAIL_PAGES) return { kind: 'unreadable', reason: 'more detail pages than a guide has' };
    const page = await provider.listShippingDetails(session, shipping.id, { offset: lines.length, limit: PAGE_LIMIT, signal });
    if (page.invalid?.length) return { kind: 'unreadable', reason: page.invalid[0]!.reason };
    if (count !== null && page.count !== null && page.count !== count) return { kind: 'unreadable', reason: `details count ${page.count}, expanded said ${count}` };
    count = count ?? page.count;
    lines.push(...page.items);
    more = page.items.length > 0 && (count === null ? page.items.length >= PAGE_LIMIT : lines.length < count);
  }
  if (count !== null && lines.length !== count) return { kind: 'unreadable', reason: `${lines.length} lines read of ${count}` };
  return { kind: 'read', lines };
};
