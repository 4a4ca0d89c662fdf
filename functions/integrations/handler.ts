import { httpHandler } from '../../shared/http/handler.ts';
import { integrationOperations } from './operations.ts';

export const handler = httpHandler(integrationOperations);
