import { httpHandler } from '../../shared/http/handler.ts';
import { assistantOperations } from './operations.ts';

export const handler = httpHandler(assistantOperations);
