import { httpHandler } from '../../shared/http/handler.ts';
import { metaOperations } from './operations.ts';

export const handler = httpHandler(metaOperations);
