import { httpHandler } from '../../shared/http/handler.ts';
import { invoicingOperations } from './operations.ts';

export const handler = httpHandler(invoicingOperations);
