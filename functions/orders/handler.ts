import { httpHandler } from '../../shared/http/handler.ts';
import { orderOperations } from './operations.ts';

export const handler = httpHandler(orderOperations);
