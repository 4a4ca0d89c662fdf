import type { AnyOperation } from '../shared/http/operation.ts';
import { assistantOperations } from './assistant/operations.ts';
import { fleetOperations } from './fleet/operations.ts';
import { fieldOperations } from './field/operations.ts';
import { orderOperations } from './orders/operations.ts';
import { routingOperations } from './routing/operations.ts';
import { trackingOperations } from './tracking/operations.ts';
import { metaOperations } from './meta/operations.ts';
import { webhookOperations } from './webhooks/operations.ts';
import { integrationOperations } from './integrations/operations.ts';

/**
 * The endpoint groups: one Lambda each. The CDK stack, the local gateway and the OpenAPI
 * document all read this list, so a route exists in all three or in none.
 */
export interface FunctionGroup {
  name: string;
  /** The handler module, relative to the project root; it exports `handler`. */
  entry: string;
  operations: AnyOperation[];
}

export const functionGroups: FunctionGroup[] = [
  { name: 'assistant', entry: 'functions/assistant/handler.ts', operations: assistantOperations },
  { name: 'fleet', entry: 'functions/fleet/handler.ts', operations: fleetOperations },
  { name: 'orders', entry: 'functions/orders/handler.ts', operations: orderOperations },
  { name: 'routing', entry: 'functions/routing/handler.ts', operations: routingOperations },
  { name: 'field', entry: 'functions/field/handler.ts', operations: fieldOperations },
  { name: 'tracking', entry: 'functions/tracking/handler.ts', operations: trackingOperations },
  { name: 'meta', entry: 'functions/meta/handler.ts', operations: metaOperations },
  { name: 'integrations', entry: 'functions/integrations/handler.ts', operations: integrationOperations },
  { name: 'webhooks', entry: 'functions/webhooks/handler.ts', operations: webhookOperations },
];

export const allOperations = (): AnyOperation[] => functionGroups.flatMap((group) => group.operations);
