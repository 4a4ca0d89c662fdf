/** The destination items' `entity`: the stream filter that sees one deleted names it (infra). */
export const ENDPOINT_ENTITY = 'webhookEndpoint';
/** A recovery's item: the stream sees it made and queues its first page. */
export const RECOVERY_ENTITY = 'webhookRecovery';
