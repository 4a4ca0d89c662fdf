import type { AnyOperation } from '../shared/http/operation.ts';
import { assistantOperations } from './assistant/operations.ts';
import { fleetOperations } from './fleet/operations.ts';
import { metaOperations } from './meta/operations.ts';
import { webhookOperations } from './webhooks/operations.ts';

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
  { name: 'meta', entry: 'functions/meta/handler.ts', operations: metaOperations },
  { name: 'webhooks', entry: 'functions/webhooks/handler.ts', operations: webhookOperations },
];

export const allOperations = (): AnyOperation[] => functionGroups.flatMap((group) => group.operations);
