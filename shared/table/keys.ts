/**
 * Key builders for every item kind, in one place so that the key design in
 * docs/table-design.md can be checked against the code. `pk`/`sk` are the table keys,
 * `gsi1pk`/`gsi1sk` and `gsi2pk`/`gsi2sk` the two generic indexes.
 */
export const tenantPk = (tenantId: string) => `T#${tenantId}`;

/**
 * Shard counts of the keys many writers share, sized in docs/capacity.md (1,000 tenants at 10
 * events a second each stay below DynamoDB's 1,000 writes a second per partition). Only ever raise
 * one, to another power of two: readers query every shard below the count, so the shards of items
 * written under a smaller count stay among them; a smaller count would strand items.
 */
/** How many partitions the due-deliveries index is spread over (the sweeper reads them all). */
export const DUE_SHARDS = 128;
/** How many partitions each hour of the outbox-by-time index is spread over (a replay reads them all). */
export const OUTBOX_SHARDS = 64;
/** How many partitions invoice intents were due on before the due index went per connection (the reconciler still drains them). */
export const RECONCILE_SHARDS = 32;
/**
 * The shard of an id: its last 16 bits (random in a UUID v4 or v7, a SHA-256 digest in a delivery
 * id) modulo a power of two, so the spread is even and a raised count keeps each old shard number.
 */
export const shardOf = (id: string, shards: number): number => parseInt(id.slice(-4), 16) % shards;
/** The due index's partitions are `DUE#<shard>`. */
export const DUE_PARTITION_PREFIX = 'DUE#';
/** The sparse index partition of active provider connections (a few per tenant). */
export const ACTIVE_CONNECTIONS_PARTITION = 'PCONN#ACTIVE';

export const keys = {
  tenant: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'TENANT' }),
  member: (tenantId: string, subject: string) => ({ pk: tenantPk(tenantId), sk: `MEMBER#${subject}` }),
  /** gsi1: a member by id (a route's workerId names a member). */
  memberById: (memberId: string) => ({ gsi1pk: `MEMBER#${memberId}`, gsi1sk: 'MEMBER' }),
  /** An invoice intent with its lines; a tenant's intents are listed oldest first (UUIDv7 ids). */
  invoiceIntent: (tenantId: string, intentId: string) => ({ pk: tenantPk(tenantId), sk: `INV#${intentId}` }),
  invoiceIntentPrefix: 'INV#',
  /** What the live credit notes of an invoice credit, per position (guards the remaining quantity). */
  invoiceCredits: (tenantId: string, invoiceId: string) => ({ pk: tenantPk(tenantId), sk: `INVCREDIT#${invoiceId}` }),
  /** Which live invoice holds a dispatch guide (decisions 14: a guide is on at most one live invoice). */
  invoiceGuide: (tenantId: string, guideId: string) => ({ pk: tenantPk(tenantId), sk: `INVGUIDE#${guideId}` }),
  /**
   * gsi2 (sparse): intents the reconciler must look at (submitting, unknown, tax pending, a guide
   * to issue), by the time they are due, one partition per connection: the reconciler reads each
   * active connection's (found on `PCONN#ACTIVE`) for its share, so no tenant's backlog stands in
   * front of another's (docs/invoicing.md, "Reconciler").
   */
  invoiceReconcileDue: (tenantId: string, connectionId: string, intentId: string, dueAt: string) => ({
    gsi2pk: `INVDUE#C#${tenantId}#${connectionId}`,
    gsi2sk: `${dueAt}#${intentId}`,
  }),
  invoiceReconcileConnection: (tenantId: string, connectionId: string) => `INVDUE#C#${tenantId}#${connectionId}`,
  /** The shared partitions intents were due on before (`INVDUE#{0..31}` by intent id): read only to move what is left there. */
  invoiceReconcilePartition: (shard: number) => `INVDUE#${shard}`,
  /**
   * What sandbox-v1 holds for one connection (documents, one-per-salesId guards, returns, its id
   * counter), in the table so that every function (issue, the reconciler) sees the same documents.
   */
  sandboxItem: (tenantId: string, connectionId: string, sk: string) => ({ pk: `${tenantPk(tenantId)}#SBX#${connectionId}`, sk }),
  /**
   * gsi2 (sparse): the active billing provider connections of every tenant, for the hourly import.
   * Only active connections carry it (a revoke rewrites the item without it), so no Scan is needed.
   */
  activeConnection: (tenantId: string, connectionId: string) => ({ gsi2pk: ACTIVE_CONNECTIONS_PARTITION, gsi2sk: `${tenantId}#${connectionId}` }),
  vehicle: (tenantId: string, vehicleId: string) => ({ pk: tenantPk(tenantId), sk: `VEHICLE#${vehicleId}` }),
  vehiclePrefix: 'VEHICLE#',
  /** Guards plate uniqueness inside a tenant: written and removed with the vehicle. */
  plate: (tenantId: string, normalisedPlate: string) => ({ pk: tenantPk(tenantId), sk: `PLATE#${normalisedPlate}` }),
  /**
   * A vehicle's care record and odometer summary, one item per vehicle beside the vehicles, so
   * the care list is two Queries of the tenant partition (VEHICLE#, CARE#) whatever the fleet.
   */
  care: (tenantId: string, vehicleId: string) => ({ pk: tenantPk(tenantId), sk: `CARE#${vehicleId}` }),
  carePrefix: 'CARE#',
  /** Every odometer reading of a vehicle, in time order (readAt is ISO UTC, so text order is time order). */
  odometerReading: (tenantId: string, vehicleId: string, readAt: string, readingId: string) => ({ pk: `${tenantPk(tenantId)}#ODO#${vehicleId}`, sk: `R#${readAt}#${readingId}` }),
  odometerPartition: (tenantId: string, vehicleId: string) => `${tenantPk(tenantId)}#ODO#${vehicleId}`,
  /** Where a reading is, by its id: a correction names the reading by id alone. Sorts before `R#`. */
  odometerReadingRef: (tenantId: string, vehicleId: string, readingId: string) => ({ pk: `${tenantPk(tenantId)}#ODO#${vehicleId}`, sk: `I#${readingId}` }),
  idempotency: (tenantId: string, operationId: string, key: string) => ({ pk: `IDEM#${tenantId}#${operationId}#${key}`, sk: 'IDEM' }),
  /** One counter per tenant, day and question kind; 30 days of them answer "most asked". */
  askedCounter: (tenantId: string, day: string, question: string) => ({ pk: `${tenantPk(tenantId)}#ASKED`, sk: `${day}#${question}` }),
  askedPartition: (tenantId: string) => `${tenantPk(tenantId)}#ASKED`,
  /** Fixed one-minute window of requests per tenant, for the 429 rate limit. */
  rateWindow: (tenantId: string, minute: number) => ({ pk: `RATE#${tenantId}`, sk: String(minute) }),
  /** Fixed one-minute window of one token subject's refused requests (not a member), for its own 429. */
  /** `source` is the viewer's network: an IPv4 address (/32) or an IPv6 /64 (issue 29). */
  noticeRateWindow: (source: string, minute: number) => ({ pk: `RATE#NOTICE#${source}`, sk: String(minute) }),
  refusedRateWindow: (subjectHash: string, minute: number) => ({ pk: `RATE#SUB#${subjectHash}`, sk: String(minute) }),
  /** A webhook destination; a tenant's destinations are read together by the fan-out. */
  webhookEndpoint: (tenantId: string, endpointId: string) => ({ pk: tenantPk(tenantId), sk: `WHEP#${endpointId}` }),
  webhookEndpointPrefix: 'WHEP#',
  /** Held by the one active destination with this normalised URL (hash): a second one is refused. */
  webhookUrlGuard: (tenantId: string, urlHash: string) => ({ pk: tenantPk(tenantId), sk: `WHURL#${urlHash}` }),
  /** How many destinations of the tenant are active, kept in every write that changes it. */
  webhookActiveCount: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'WHACTIVE' }),
  /** A recovery of a destination's dead deliveries, and the lock its destination holds while one runs. */
  webhookRecovery: (tenantId: string, endpointId: string, recoveryId: string) => ({ pk: tenantPk(tenantId), sk: `WHREC#${endpointId}#${recoveryId}` }),
  webhookRecoveryLock: (tenantId: string, endpointId: string) => ({ pk: tenantPk(tenantId), sk: `WHRECLOCK#${endpointId}` }),
  /** How many recoveries of the tenant are running (their locks), kept in every write that takes or releases a lock. */
  webhookRecoveriesRunning: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'WHRECRUNNING' }),
  /** Deliveries live in their own partition per tenant, newest first by their UUIDv7 id. */
  delivery: (tenantId: string, deliveryId: string) => ({ pk: `${tenantPk(tenantId)}#DLV`, sk: `DLV#${deliveryId}` }),
  deliveryPartition: (tenantId: string) => `${tenantPk(tenantId)}#DLV`,
  deliveryPrefix: 'DLV#',
  /** gsi1: one destination's deliveries, newest first. */
  deliveryByEndpoint: (endpointId: string, deliveryId: string) => ({ gsi1pk: `WHEP#${endpointId}#DLV`, gsi1sk: `DLV#${deliveryId}` }),
  deliveryByEndpointPartition: (endpointId: string) => `WHEP#${endpointId}#DLV`,
  /**
   * gsi2 (sparse): deliveries that are due, by due time. Set while a delivery is pending (due at
   * nextAttemptAt) or being attempted (due when its lease ends), removed once it settles; spread
   * over a few partitions so that busy tenants do not write one hot key.
   */
  deliveryDue: (deliveryId: string, dueAt: string) => ({ gsi2pk: `${DUE_PARTITION_PREFIX}${shardOf(deliveryId, DUE_SHARDS)}`, gsi2sk: `${dueAt}#${deliveryId}` }),
  /**
   * A billing-provider authorization, found by the SHA-256 of its binding secret (the only thing
   * the completion names), so the secret itself is never stored.
   */
  providerAuthorization: (tenantId: string, bindingSecretHash: string) => ({ pk: tenantPk(tenantId), sk: `PAUTH#${bindingSecretHash}` }),
  /** A billing-provider connection; a tenant's connections are listed oldest first. */
  providerConnection: (tenantId: string, connectionId: string) => ({ pk: tenantPk(tenantId), sk: `CONN#${connectionId}` }),
  providerConnectionPrefix: 'CONN#',
  /** How many connections of the tenant are active, kept in every write that changes it (at most 20). */
  activeConnectionCount: (tenantId: string) => ({ pk: tenantPk(tenantId), sk: 'CONNACTIVE' }),
  /** Where the hourly import schedule stopped among the active connections (it goes on from there). */
  importScheduleCursor: () => ({ pk: 'PCONN#SCHEDULE', sk: 'CURSOR' }),
  /** An import of a connection; a connection's imports are listed oldest first (UUIDv7 ids). */
  providerImport: (tenantId: string, connectionId: string, importId: string) => ({ pk: tenantPk(tenantId), sk: `IMPORT#${connectionId}#${importId}` }),
  providerImportPrefix: (connectionId: string) => `IMPORT#${connectionId}#`,
  /** Held while an import of the connection is queued or running: one at a time. */
  importLock: (tenantId: string, connectionId: string) => ({ pk: tenantPk(tenantId), sk: `IMPORTLOCK#${connectionId}` }),
  /**
   * A canonical record, one partition per connection and stream. The id is derived from the
   * externalId (recordId), so the record of an externalId is found with one GetItem.
   */
  canonicalRecord: (tenantId: string, connectionId: string, stream: string, recordId: string) => ({ pk: `${tenantPk(tenantId)}#REC#${connectionId}#${stream}`, sk: `R#${recordId}` }),
  canonicalRecordPartition: (tenantId: string, connectionId: string, stream: string) => `${tenantPk(tenantId)}#REC#${connectionId}#${stream}`,
  canonicalRecordPrefix: 'R#',
  /** A version conflict of a connection, oldest first. */
  recordConflict: (tenantId: string, connectionId: string, conflictId: string) => ({ pk: `${tenantPk(tenantId)}#CONFLICT#${connectionId}`, sk: `C#${conflictId}` }),
  recordConflictPartition: (tenantId: string, connectionId: string) => `${tenantPk(tenantId)}#CONFLICT#${connectionId}`,
  recordConflictPrefix: 'C#',
  /**
   * Held for as long as its conflict lives: one per record, conflict kind and incoming content
   * (hash), so the same bad content met by every hourly import is one conflict.
   */
  recordConflictGuard: (tenantId: string, connectionId: string, contentKey: string) => ({ pk: `${tenantPk(tenantId)}#CONFLICT#${connectionId}`, sk: `CKEY#${contentKey}` }),
  /** The connections that imported a provider company, for its notices (which name the company only). */
  providerCompanyConnection: (origin: string, clientCode: string, tenantId: string, connectionId: string) => ({ pk: `PCOMPANY#${origin}#${clientCode}`, sk: `${tenantId}#${connectionId}` }),
  providerCompanyPartition: (origin: string, clientCode: string) => `PCOMPANY#${origin}#${clientCode}`,
  /**
   * A provider company's notices waiting to be read (one per topic and resource: a repeat within
   * 60 s is the same notice), its drain marker (one drain message queued at a time) and its
   * per-minute budget of provider reads, all in one partition of the company.
   */
  providerNotice: (origin: string, clientCode: string, noticeKey: string) => ({ pk: `PNOTICE#${origin}#${clientCode}`, sk: `N#${noticeKey}` }),
  providerNoticePartition: (origin: string, clientCode: string) => `PNOTICE#${origin}#${clientCode}`,
  providerNoticePrefix: 'N#',
  providerNoticeDrain: (origin: string, clientCode: string) => ({ pk: `PNOTICE#${origin}#${clientCode}`, sk: 'DRAIN' }),
  providerNoticeBudget: (origin: string, clientCode: string, minute: number) => ({ pk: `PNOTICE#${origin}#${clientCode}`, sk: `BUDGET#${minute}` }),
  /** What one source network (an IPv4 /32, an IPv6 /64) of notices spent of the company's reads this minute (issue 29). */
  providerNoticeSourceBudget: (origin: string, clientCode: string, minute: number, source: string) => ({ pk: `PNOTICE#${origin}#${clientCode}`, sk: `BUDGET#${minute}#${source}` }),
  /** A notice in the order it arrived (epoch milliseconds, 13 digits): the drain reads these oldest first; the `N#` item holds its progress. */
  providerNoticeQueued: (origin: string, clientCode: string, receivedAtMs: number, noticeKey: string) => ({
    pk: `PNOTICE#${origin}#${clientCode}`,
    sk: `Q#${String(receivedAtMs).padStart(13, '0')}#${noticeKey}`,
  }),
  providerNoticeQueuePrefix: 'Q#',
  /** Outbox: the events a change causes, carried on by the table stream. */
  event: (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'EVENT' }),
  /**
   * gsi1: events by the hour they occurred, spread over OUTBOX_SHARDS partitions (shardOf the
   * id), so an operator can replay a time range to the stream consumers without a Scan.
   */
  eventByTime: (eventId: string, occurredAt: string) => ({ gsi1pk: keys.eventHour(occurredAt.slice(0, 13), shardOf(eventId, OUTBOX_SHARDS)), gsi1sk: `${occurredAt}#${eventId}` }),
  eventHour: (hour: string, shard: number) => `OUTBOX#${hour}#${shard}`,
} as const;
