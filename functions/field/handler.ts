import { httpHandler } from '../../shared/http/handler.ts';
import { fieldOperations } from './operations.ts';

export const handler = httpHandler(fieldOperations);
