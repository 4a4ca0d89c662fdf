import { UnprocessableError, type FieldIssue } from '../../shared/errors.ts';
import type { Evidence, RouteRecord } from './schemas.ts';

/** Checks a delivery's evidence against the route's policy; all missing pieces are named at once. */
export const enforceVerification = (policy: RouteRecord['verification'], evidence: Evidence[]): void => {
  const issues: FieldIssue[] = [];
  const photos = evidence.filter((e) => e.kind === 'photo').length;
  const neededPhotos = policy.photo ? Math.max(1, policy.minPhotos ?? 1) : 0;
  if (photos < neededPhotos) issues.push({ path: 'body.evidence', message: `this route needs ${neededPhotos} photo(s) per delivery, ${photos} given` });
  if (policy.signature && !evidence.some((e) => e.kind === 'signature')) issues.push({ path: 'body.evidence', message: 'this route needs a signature per delivery' });
  if (issues.length > 0) throw new UnprocessableError('The delivery lacks the evidence the route requires.', 'evidence_required', issues);
};
