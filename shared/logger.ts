import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config.ts';

/**
 * One structured logger per process. Request and tenant ids are appended per request by the
 * middleware chain; headers and bodies are never logged, so tokens and secrets cannot leak.
 */
export const logger = new Logger({ serviceName: config.serviceName, logLevel: (process.env.LOG_LEVEL as 'INFO') ?? 'INFO' });
