import { allowedContextKeysForRequest } from '@cloud-copilot/iam-simulate';
console.log(await allowedContextKeysForRequest('kms', 'Decrypt', 'arn:aws:kms:us-east-1:123456789012:key/k1', false, undefined as any));
