import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/clock.ts';
import { NotFoundError, VersionMismatchError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { tenantPk } from '../../shared/table/keys.ts';
import { opsKeys } from '../../shared/table/keys-operations.ts';
import { table, tableName } from '../../shared/table/client.ts';
import { queryPage, type Page } from '../../shared/table/pages.ts';
import type { Write } from '../../shared/table/transaction.ts';
import type { CreateDepotBody, Depot, UpdateDepotBody } from './depot-schemas.ts';

const notFound = () => new NotFoundError('No depot with this id.');

const toDepot = (item: Record<string, unknown>): Depot => ({
  id: item.depotId as string,
  name: item.name as string,
  address: item.address as Depot['address'],
  version: item.version as number,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
});

const depotItem = (tenantId: string, depot: Depot) => ({
  ...opsKeys.depot(tenantId, depot.id),
  entity: 'depot',
  tenantId,
  depotId: depot.id,
  name: depot.name,
  address: depot.address,
  version: depot.version,
  createdAt: depot.createdAt,
  updatedAt: depot.updatedAt,
});

export const createDepot = (tenantId: string, body: CreateDepotBody, now: Date): { depot: Depot; writes: Write[] } => {
  const at = nowIso(now);
  const depot: Depot = { id: newId(), name: body.name, address: body.address, version: 1, createdAt: at, updatedAt: at };
  return { depot, writes: [{ item: { Put: { TableName: tableName(), Item: depotItem(tenantId, depot), ConditionExpression: 'attribute_not_exists(pk)' } } }] };
};

/** One depot of the tenant; another tenant's id is not under this tenant's key, so it is 404 too. */
export const getDepot = async (tenantId: string, depotId: string): Promise<Depot> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: opsKeys.depot(tenantId, depotId), ConsistentRead: true }));
  if (!Item) throw notFound();
  return toDepot(Item);
};

/** Oldest first (ids are UUIDv7), the cursor the last id of the page. */
export const listDepots = (tenantId: string, page: { after?: string; limit: number }): Promise<Page<Depot>> =>
  queryPage({ pk: tenantPk(tenantId), prefix: opsKeys.depotPrefix, after: page.after, limit: page.limit }, toDepot, (d) => d.id);

export const updateDepot = async (tenantId: string, depotId: string, body: UpdateDepotBody, now: Date): Promise<{ depot: Depot; writes: Write[] }> => {
  const current = await getDepot(tenantId, depotId);
  if (current.version !== body.version) throw new VersionMismatchError(current.version, body.version);
  const depot: Depot = { ...current, name: body.name ?? current.name, address: body.address ?? current.address, version: current.version + 1, updatedAt: nowIso(now) };
  const write: Write = {
    item: {
      Put: {
        TableName: tableName(),
        Item: depotItem(tenantId, depot),
        // The version read above may be stale by now: the write itself checks it.
        ConditionExpression: 'attribute_exists(pk) AND version = :expected',
        ExpressionAttributeValues: { ':expected': body.version },
      },
    },
    onConditionFailed: (old) => (old ? new VersionMismatchError(old.version as number, body.version) : notFound()),
  };
  return { depot, writes: [write] };
};
