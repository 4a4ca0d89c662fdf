/** The destination items' `entity`: the stream filter that sees one deleted names it (infra). */
export const ENDPOINT_ENTITY = 'webhookEndpoint';
/** A recovery's item: the stream sees it made and queues its first page. */
export const RECOVERY_ENTITY = 'webhookRecovery';
/** A running recovery's lock: on the due index (gsi2) while leased, where the sweeper finds one whose lease ran out. */
export const RECOVERY_LOCK_ENTITY = 'webhookRecoveryLock';
