/** The destination items' `entity`: the stream filter that sees one deleted names it (infra). */
export const ENDPOINT_ENTITY = 'webhookEndpoint';
