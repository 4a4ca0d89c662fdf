/**
 * The role table: the one place in code that says who may do what (docs/roles.md mirrors it).
 * An operation names one permission; a member may call it when their role is listed.
 */
export const roles = ['admin', 'operator', 'driver', 'viewer'] as const;
export type Role = (typeof roles)[number];

const everyone: readonly Role[] = roles;
const staff: readonly Role[] = ['admin', 'operator'];
const readers: readonly Role[] = ['admin', 'operator', 'viewer'];
const adminOnly: readonly Role[] = ['admin'];

export const permissions = {
  'assistant.ask': everyone,
  'fleet.read': readers,
  'fleet.write': staff,
  'fleet.odometer': ['admin', 'operator', 'driver'], // drivers: only the vehicle of their route of today, checked by the operation
  'fleet.correct': adminOnly, // removing a wrong odometer reading
  'orders.read': readers,
  'orders.write': staff,
  'plans.read': readers,
  'plans.write': staff,
  'depots.read': everyone, // decisions 15: every role reads depots
  'depots.write': adminOnly,
  'routes.read': everyone, // drivers: only routes assigned to them, checked by the operation
  'routes.write': staff,
  'field.act': ['admin', 'operator', 'driver'], // drivers: only on routes assigned to them
  'receipts.erase': adminOnly, // erasing a stop's receiver (decisions 16)
  'invoices.read': readers,
  'invoices.write': staff, // create, review and reconcile (decisions 9)
  'invoices.approve': adminOnly, // approve, issue, cancel
  'webhooks.read': readers,
  'webhooks.manage': adminOnly,
  'webhooks.catalogue': staff, // the event-type catalogue, for those who build receivers (decisions 5)
  'integrations.read': readers, // connections and issue options: every role but driver (decisions 10)
  'integrations.manage': adminOnly,
  'integrations.import': staff, // imports: admin or operator (decisions 10)
  'audit.read': adminOnly,
  'settings.read': everyone, // decisions 13: every role reads the tenant's settings
  'settings.manage': adminOnly,
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof permissions;

export const mayPerform = (role: Role, permission: Permission): boolean =>
  (permissions[permission] as readonly Role[]).includes(role);
