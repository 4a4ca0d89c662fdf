import { httpHandler } from '../../shared/http/handler.ts';
import { routingOperations } from './operations.ts';

export const handler = httpHandler(routingOperations);
