import { httpHandler } from '../../shared/http/handler.ts';
import { webhookOperations } from './operations.ts';

export const handler = httpHandler(webhookOperations);
