import { ProviderUnavailableError } from '../../../shared/ports/billing-provider/errors.ts';
import { PAGE_LIMIT, type BillingProvider, type Contact, type InvalidItem, type Page, type ProviderSession } from '../../../shared/ports/billing-provider/port.ts';
import type { ImportStream } from '../api-schemas.ts';
import { mapClient, mapStock, mapVariant } from '../provider-mapping.ts';
import type { RecordFields } from '../record-schemas.ts';

/** The provider answers about 10 requests a second per token (provider-chile.md); we stay under it. */
const minIntervalMs = (): number => Number(process.env.IMPORT_PROVIDER_MIN_INTERVAL_MS ?? 110);
/** 429s waited out in one delivery before the message is left to SQS's redelivery. */
const MAX_RATE_WAITS = 8;
/** More contacts than the record may hold make it invalid: reading one past the limit is enough. */
const MAX_CONTACTS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const lastCall = new Map<string, number>();

/**
 * One provider call for a connection: spaced from the previous one's answer (per container, where
 * one message of an import runs at a time), and a 429 waited out for its Retry-After. Spacing
 * from the answer rather than the start keeps arrivals at the provider apart even when a request
 * left late (a busy event loop), which a 10-a-second window would count twice.
 */
export const providerCall = async <T>(connectionId: string, call: () => Promise<T>, maxRateWaits = MAX_RATE_WAITS): Promise<T> => {
  // One call of a connection at a time in this container: two deliveries of one message (a
  // visibility timeout that ran out under load), or a page and a notice, would otherwise both
  // space from the same answer and reach the provider together.
  const previous = inTurn.get(connectionId) ?? Promise.resolve();
  let done!: () => void;
  const turn = previous.then(() => new Promise<void>((resolve) => (done = resolve)));
  inTurn.set(connectionId, turn);
  await previous;
  try {
    return await spacedCall(connectionId, call, maxRateWaits);
  } finally {
    done();
    if (inTurn.get(connectionId) === turn) inTurn.delete(connectionId);
  }
};

const inTurn = new Map<string, Promise<void>>();

const spacedCall = async <T>(connectionId: string, call: () => Promise<T>, maxRateWaits: number): Promise<T> => {
  for (let waits = 0; ; waits++) {
    const due = (lastCall.get(connectionId) ?? 0) + minIntervalMs();
    const now = Date.now();
    if (due > now) await sleep(due - now);
    try {
      const answer = await call();
      lastCall.set(connectionId, Date.now());
      return answer;
    } catch (error) {
      lastCall.set(connectionId, Date.now());
      if (!(error instanceof ProviderUnavailableError) || error.reason !== 'rate_limited' || waits >= maxRateWaits) throw error;
      const seconds = Math.min(10, Number(error.headers['retry-after'] ?? 1) || 1);
      await sleep(seconds * 1000);
    }
  }
};

export interface ObservedPage {
  observations: RecordFields[];
  /** Offset of the stream's next page; null after its last. */
  nextOffset: number | null;
}

/**
 * An item the port could not read, as an observation the record schemas refuse: the version rule
 * makes it an invalid_record conflict (its content hash is the provider's item itself), and the
 * page goes on.
 */
export const unreadable = (item: InvalidItem): RecordFields => ({ externalId: item.externalId ?? '', unreadable: item.reason, providerItem: item.raw ?? null }) as unknown as RecordFields;

const contactsOf = async (provider: BillingProvider, session: ProviderSession, connectionId: string, clientId: string): Promise<{ contacts: Contact[]; invalid: InvalidItem[] }> => {
  const contacts: Contact[] = [];
  const invalid: InvalidItem[] = [];
  let offset: number | null = 0;
  while (offset !== null && contacts.length + invalid.length <= MAX_CONTACTS) {
    const at: number = offset;
    const page: Page<Contact> = await providerCall(connectionId, () => provider.listContacts(session, clientId, { offset: at, limit: PAGE_LIMIT }));
    contacts.push(...page.items);
    invalid.push(...(page.invalid ?? []));
    offset = page.nextOffset;
  }
  return { contacts, invalid };
};

/** One provider page of a stream, mapped (parties with their contacts, read apart). */
export const readProviderPage = async (provider: BillingProvider, session: ProviderSession, connectionId: string, stream: ImportStream, offset: number): Promise<ObservedPage> => {
  const request = { offset, limit: PAGE_LIMIT };
  if (stream === 'variants') {
    const page = await providerCall(connectionId, () => provider.listVariants(session, request));
    return { observations: [...page.items.map(mapVariant), ...(page.invalid ?? []).map(unreadable)], nextOffset: page.nextOffset };
  }
  if (stream === 'stock_levels') {
    const page = await providerCall(connectionId, () => provider.listStocks(session, request));
    return { observations: [...page.items.map(mapStock), ...(page.invalid ?? []).map(unreadable)], nextOffset: page.nextOffset };
  }
  const page = await providerCall(connectionId, () => provider.listClients(session, request));
  const observations: RecordFields[] = (page.invalid ?? []).map(unreadable);
  for (const client of page.items) {
    const { contacts, invalid } = await contactsOf(provider, session, connectionId, client.id);
    const party = mapClient(client, contacts);
    // An unreadable contact makes its party invalid: stored without it, the party would be wrong.
    observations.push(invalid.length === 0 ? party : unreadable({ externalId: client.id, raw: { client, unreadableContacts: invalid.map((i) => i.raw ?? null) }, reason: invalid[0]!.reason }));
  }
  return { observations, nextOffset: page.nextOffset };
};
