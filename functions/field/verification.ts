import { UnprocessableError, type FieldIssue } from '../../shared/errors.ts';
import type { Evidence, RouteRecord } from './schemas.ts';

/**
 * Checks a delivery's evidence against the route's policy, and a receipt of goods' signature
 * (decisions 16: the receiver signs it, Ley 19.983 art. 4 b)); all missing pieces are named at once.
 */
export const enforceVerification = (policy: RouteRecord['verification'], evidence: Evidence[], withReceipt = false): void => {
  const issues: FieldIssue[] = [];
  const photos = evidence.filter((e) => e.kind === 'photo').length;
  const neededPhotos = policy.photo ? Math.max(1, policy.minPhotos ?? 1) : 0;
  if (photos < neededPhotos) issues.push({ path: 'body.evidence', message: `this route needs ${neededPhotos} photo(s) per delivery, ${photos} given` });
  const signed = evidence.some((e) => e.kind === 'signature');
  if (policy.signature && !signed) issues.push({ path: 'body.evidence', message: 'this route needs a signature per delivery' });
  else if (withReceipt && !signed) issues.push({ path: 'body.evidence', message: 'a delivery with receivedBy needs the receiver’s signature (evidence of kind signature)' });
  if (issues.length > 0) throw new UnprocessableError('The delivery lacks the evidence the route requires.', 'evidence_required', issues);
};
