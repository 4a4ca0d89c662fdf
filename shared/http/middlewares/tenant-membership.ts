import { BadRequestError, ForbiddenError } from '../../errors.ts';
import { isUuid } from '../../ids.ts';
import { logger } from '../../logger.ts';
import { countRefusedRequest, countTenantRequest } from '../../rate-limit.ts';
import { getMember } from '../../tenancy/members.ts';
import { header, type ApiMiddleware } from '../types.ts';

/**
 * The caller must be an active member of the tenant named in x-tenant-id, checked against the
 * table on every request so that a removed member is refused at once, whatever the token says.
 * Only then is the request counted against the tenant's rate; a refusal counts against the
 * caller's own, lower one instead (shared/rate-limit.ts).
 */
export const tenantMembership = (): ApiMiddleware => ({
  before: async ({ event, context }) => {
    if (context.operation.access === 'public') return;
    const tenantId = header(event, 'x-tenant-id');
    if (!tenantId) throw new BadRequestError('The x-tenant-id header is required.', 'tenant_header_missing');
    if (!isUuid(tenantId)) throw new BadRequestError('The x-tenant-id header must be a UUID.', 'tenant_header_invalid');
    const subject = context.claims?.sub;
    if (typeof subject !== 'string' || subject === '') throw new ForbiddenError('The token names no subject.', 'not_a_member');
    const member = await getMember(tenantId, subject);
    if (!member?.active) {
      await countRefusedRequest(subject, context.receivedAt);
      throw new ForbiddenError('You are not an active member of this tenant.', 'not_a_member');
    }
    await countTenantRequest(tenantId, context.receivedAt);
    context.tenantId = tenantId;
    context.member = member;
    logger.appendKeys({ tenantId, memberId: member.id });
  },
});
