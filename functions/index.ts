import type { AnyOperation } from '../shared/http/operation.ts';
import { NO_TABLE, type TableAccess } from '../shared/table/access.ts';
import { opsKeys } from '../shared/table/keys-operations.ts';
import { assistantOperations } from './assistant/operations.ts';
import { auditOperations } from './audit/operations.ts';
import { fleetOperations } from './fleet/operations.ts';
import { fieldOperations } from './field/operations.ts';
import { orderOperations } from './orders/operations.ts';
import { routingOperations } from './routing/operations.ts';
import { trackingOperations } from './tracking/operations.ts';
import { metaOperations } from './meta/operations.ts';
import { webhookOperations } from './webhooks/operations.ts';
import { integrationOperations } from './integrations/operations.ts';
import { invoicingOperations } from './invoicing/operations.ts';
import { tenantOperations } from './tenant/operations.ts';

/**
 * The endpoint groups: one Lambda each. The CDK stack, the local gateway and the OpenAPI
 * document all read this list, so a route exists in all three or in none.
 */
export interface FunctionGroup {
  name: string;
  /** The handler module, relative to the project root; it exports `handler`. */
  entry: string;
  operations: AnyOperation[];
  /**
   * This group also answers every method and path no operation has (API Gateway's `$default`
   * route), with a 404 problem+json instead of API Gateway's own `{"message":"Not Found"}`.
   */
  catchAll?: boolean;
  /** What the group's function does with the table; its role is granted exactly this. */
  table: TableAccess;
}

/**
 * Every authenticated request reads the membership (GetItem), counts the tenant's rate window
 * (UpdateItem) and looks for an idempotent replay (GetItem); a change commits with PutItem and
 * UpdateItem (TransactWriteItems is authorised per item).
 */
const requestPath = ['GetItem', 'PutItem', 'UpdateItem'] as const;

export const functionGroups: FunctionGroup[] = [
  { name: 'assistant', entry: 'functions/assistant/handler.ts', operations: assistantOperations, table: { items: [...requestPath, 'Query'] } },
  // gsi1: a driver's routes of the day, before they post an odometer reading.
  { name: 'fleet', entry: 'functions/fleet/handler.ts', operations: fleetOperations, table: { items: [...requestPath, 'Query', 'DeleteItem'], queries: ['gsi1'] } },
  // BatchGetItem: the guards and intents of a page of orders' dispatch guides (decisions 16).
  { name: 'orders', entry: 'functions/orders/handler.ts', operations: orderOperations, table: { items: [...requestPath, 'BatchGetItem', 'Query'] } },
  // BatchGetItem: a plan's orders (and a preview's orders and vehicles); Query: the depots of a
  // tenant; gsi1: a service date's orders, plans and previews (decisions 15).
  { name: 'routing', entry: 'functions/routing/handler.ts', operations: routingOperations, table: { items: [...requestPath, 'BatchGetItem', 'Query', 'DeleteItem'], queries: ['gsi1'] } },
  {
    name: 'field',
    entry: 'functions/field/handler.ts',
    operations: fieldOperations,
    table: { items: [...requestPath, 'BatchGetItem', 'Query', 'ConditionCheckItem'], queries: ['gsi1'] },
  },
  // Public: it reads tracking views by their token and can reach no tenant's items.
  { name: 'tracking', entry: 'functions/tracking/handler.ts', operations: trackingOperations, table: { items: ['GetItem'], partitions: [opsKeys.trackingView('*').pk] } },
  { name: 'meta', entry: 'functions/meta/handler.ts', operations: metaOperations, table: NO_TABLE, catchAll: true },
  { name: 'webhooks', entry: 'functions/webhooks/handler.ts', operations: webhookOperations, table: { items: [...requestPath, 'Query', 'DeleteItem'], queries: ['gsi1'] } },
  { name: 'audit', entry: 'functions/audit/handler.ts', operations: auditOperations, table: { items: ['GetItem', 'UpdateItem', 'Query'], queries: ['gsi1', 'gsi2', 'gsi3'] } },
  { name: 'integrations', entry: 'functions/integrations/handler.ts', operations: integrationOperations, table: { items: [...requestPath, 'Query'] } },
  // ConditionCheckItem: an invoice from guides checks each guide still unsent is as it was read.
  { name: 'invoicing', entry: 'functions/invoicing/handler.ts', operations: invoicingOperations, table: { items: [...requestPath, 'Query', 'ConditionCheckItem'] } },
  // The tenant item is read and replaced whole (PutItem) under its version.
  { name: 'tenant', entry: 'functions/tenant/handler.ts', operations: tenantOperations, table: { items: [...requestPath] } },
];

export const allOperations = (): AnyOperation[] => functionGroups.flatMap((group) => group.operations);

/**
 * The operations of a group whose idempotent answer is stored sealed (it reveals a secret): the
 * only `operationId` values under which the group's role may seal and open replays.
 */
export const sealedReplayOperations = (groupName: string): string[] =>
  (functionGroups.find((group) => group.name === groupName)?.operations ?? [])
    .filter((operation) => operation.access === 'member' && operation.idempotent && operation.responseHasSecret)
    .map((operation) => operation.operationId);
