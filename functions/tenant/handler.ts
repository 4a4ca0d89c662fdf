import { httpHandler } from '../../shared/http/handler.ts';
import { tenantOperations } from './operations.ts';

export const handler = httpHandler(tenantOperations);
