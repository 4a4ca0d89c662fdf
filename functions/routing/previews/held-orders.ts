import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { table, tableName } from '../../../shared/table/client.ts';

/**
 * The orders the day's plans still hold (decisions 15, 17): those on a planned route no route was
 * made of yet. Once a planned route is assigned (or applied over an assigned route) its claim
 * reads `assigned` and the route holds its orders; one that is pending again was taken off it (a
 * cancel, or another plan applied in place), so the plan holds it no more and a whole-day
 * preview takes it. One Query of each plan's claims (a day has a few plans).
 */
export const heldOrderIds = async (tenantId: string, plans: Record<string, unknown>[]): Promise<Set<string>> => {
  const held = new Set<string>();
  await Promise.all(
    plans.map(async (plan) => {
      const routes = (plan.routes as Array<{ vehicleRouteId: string; orderIds: string[] }> | undefined) ?? [];
      if (routes.length === 0) return;
      const assigned = new Set<string>();
      let start: Record<string, unknown> | undefined;
      do {
        const page = await table().send(
          new QueryCommand({
            TableName: tableName(),
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': opsKeys.planRouteClaim(tenantId, plan.planId as string, '').pk },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        // Claims written before they had a state are whole assignments.
        for (const claim of page.Items ?? []) if ((claim.state ?? 'assigned') === 'assigned') assigned.add(String(claim.sk).slice('VROUTE#'.length));
        start = page.LastEvaluatedKey;
      } while (start);
      for (const route of routes) if (!assigned.has(route.vehicleRouteId)) route.orderIds.forEach((id) => held.add(id));
    }),
  );
  return held;
};
