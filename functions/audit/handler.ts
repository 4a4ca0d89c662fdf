import { httpHandler } from '../../shared/http/handler.ts';
import { auditOperations } from './operations.ts';

export const handler = httpHandler(auditOperations);
