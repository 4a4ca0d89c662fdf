import { mayPerform } from '../../auth/roles.ts';
import { hasTwoStepVerification } from '../../auth/token-verifier.ts';
import { ForbiddenError } from '../../errors.ts';
import type { ApiMiddleware } from '../types.ts';

/** 403 when the member's role may not perform the operation (table in shared/auth/roles.ts). */
export const roleCheck = (): ApiMiddleware => ({
  before: ({ context }) => {
    const operation = context.operation;
    if (operation.access === 'public') return;
    const member = context.member!;
    if (!mayPerform(member.role, operation.permission)) {
      throw new ForbiddenError(`The ${member.role} role may not ${operation.summary.toLowerCase()}.`, 'role_forbidden');
    }
    if (operation.requiresMfa && !hasTwoStepVerification(context.claims!)) {
      throw new ForbiddenError('This operation needs a sign-in with two-step verification.', 'mfa_required');
    }
  },
});
