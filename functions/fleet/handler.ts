import { httpHandler } from '../../shared/http/handler.ts';
import { fleetOperations } from './operations.ts';

export const handler = httpHandler(fleetOperations);
