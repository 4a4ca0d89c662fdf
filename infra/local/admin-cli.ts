import { parseArgs } from 'node:util';
import * as v from 'valibot';
import { roles } from '../../shared/auth/roles.ts';
import { Uuid } from '../../shared/http/schemas.ts';
import { deactivateMember, putMember } from '../../shared/tenancy/members.ts';
import { ianaTimeZone, putTenant } from '../../shared/tenancy/tenants.ts';
import { runningStack } from './stack-client.ts';

/**
 * `npm run admin -- <command>`: the operator tool. It acts on the running local stack's table,
 * or, when TABLE_NAME is set (and no DYNAMODB_ENDPOINT), on that deployed table with the
 * caller's AWS credentials.
 */
const usage = `usage:
  npm run admin -- tenants create --id <uuid> --name <text> [--time-zone <IANA zone>]
  npm run admin -- members add --tenant <uuid> --subject <sub> --role admin|operator|driver|viewer --first-name <text> [--id <uuid>]
  npm run admin -- members remove --tenant <uuid> --subject <sub>
  npm run admin -- outbox replay --from <ISO time> --to <ISO time> [--tenant <uuid>]`;

const fail = (message: string): never => {
  console.error(`${message}\n\n${usage}`);
  process.exit(2);
};

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    id: { type: 'string' },
    name: { type: 'string' },
    'time-zone': { type: 'string' },
    tenant: { type: 'string' },
    subject: { type: 'string' },
    role: { type: 'string' },
    'first-name': { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
  },
});

const required = (name: keyof typeof values): string => values[name] || fail(`--${name} is required`);
const time = (name: 'from' | 'to'): Date => {
  const value = required(name);
  const at = new Date(value);
  return /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(at.getTime()) ? at : fail(`--${name} must be an ISO 8601 time`);
};
const uuid = (name: 'id' | 'tenant'): string => {
  const value = required(name);
  return v.is(Uuid, value) ? value : fail(`--${name} must be a UUID`);
};

const target = async (): Promise<string> => {
  if (process.env.TABLE_NAME && !process.env.DYNAMODB_ENDPOINT) return `table ${process.env.TABLE_NAME} (AWS)`;
  const stack = await runningStack();
  process.env.TABLE_NAME = stack.tableName;
  process.env.DYNAMODB_ENDPOINT = stack.dynamoEndpoint;
  return `table ${stack.tableName} of the local stack ${stack.baseUrl}`;
};

/**
 * A running local stack replays in its own process (its queue stand-in); a deployed table is
 * replayed from here, with the queue and key settings of the webhook functions in the environment.
 */
const replay = async (range: { from: Date; to: Date; tenantId?: string }): Promise<unknown> => {
  if (process.env.TABLE_NAME && !process.env.DYNAMODB_ENDPOINT) {
    const { replayOutbox } = await import('../../shared/events/replay.ts');
    const { loadConsumers } = await import('./outbox-replay-route.ts');
    return replayOutbox(range, await loadConsumers());
  }
  const stack = await runningStack();
  const response = await fetch(`${stack.baseUrl}/_local/outbox/replay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ from: range.from.toISOString(), to: range.to.toISOString(), tenantId: range.tenantId }),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`replay failed: ${(body as { message?: string }).message ?? response.status}`);
  console.error(`outbox replayed on the local stack ${stack.baseUrl}`);
  return body;
};

const [area, action] = positionals;
try {
  if (area === 'tenants' && action === 'create') {
    const id = uuid('id');
    const name = required('name');
    // The settings API's own rule (docs/tenant-settings.md): any IANA zone, stored in canonical form.
    const timeZone = values['time-zone'] === undefined ? undefined : (ianaTimeZone(values['time-zone']) ?? fail(`--time-zone ${values['time-zone']} is not an IANA time zone`));
    const where = await target();
    const tenant = await putTenant({ id, name, timeZone });
    console.error(`tenant saved in ${where}`);
    console.log(JSON.stringify(tenant));
  } else if (area === 'members' && action === 'add') {
    const tenantId = uuid('tenant');
    const role = required('role');
    if (!(roles as readonly string[]).includes(role)) fail(`--role must be one of ${roles.join(', ')}`);
    const id = values.id === undefined ? undefined : uuid('id');
    const input = { tenantId, subject: required('subject'), role: role as (typeof roles)[number], firstName: required('first-name'), id };
    const where = await target();
    const member = await putMember(input);
    console.error(`member saved in ${where}`);
    console.log(member.id);
  } else if (area === 'members' && action === 'remove') {
    const tenantId = uuid('tenant');
    const subject = required('subject');
    await target();
    if (!(await deactivateMember(tenantId, subject))) {
      console.error(`${subject} is not a member of ${tenantId}`);
      process.exit(1);
    }
    console.log(`${subject} is no longer an active member of ${tenantId}`);
  } else if (area === 'outbox' && action === 'replay') {
    const from = time('from');
    const to = time('to');
    if (from >= to) fail('--from must be before --to');
    const tenantId = values.tenant === undefined ? undefined : uuid('tenant');
    console.log(JSON.stringify(await replay({ from, to, tenantId })));
  } else {
    fail(area ? `unknown command: ${positionals.join(' ')}` : 'a command is required');
  }
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
