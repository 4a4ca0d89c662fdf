import { httpHandler } from '../../shared/http/handler.ts';
import { trackingOperations } from './operations.ts';

export const handler = httpHandler(trackingOperations);
