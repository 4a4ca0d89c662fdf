import { runSimulation } from '@cloud-copilot/iam-simulate';
const policy = {Version:'2012-10-17', Statement: [{"Action": "kms:Decrypt", "Condition": {"ForAllValues:StringEquals": {"kms:EncryptionContextKeys": ["tenantId", "endpointId", "secretId"]}, "Null": {"kms:EncryptionContext:tenantId": "false", "kms:EncryptionContext:endpointId": "false", "kms:EncryptionContext:secretId": "false"}}, "Effect": "Allow", "Resource": "arn:aws:kms:us-east-1:123456789012:key/k1"}]};
const keyPolicy = {Version:'2012-10-17', Statement:[{Action:'kms:*', Effect:'Allow', Principal:{AWS:'arn:aws:iam::123456789012:root'}, Resource:'*'}]};
for (const rp of [undefined, keyPolicy]) {
const r = await runSimulation({
  request: { principal: 'arn:aws:sts::123456789012:assumed-role/R/s', action: 'kms:Decrypt', resource: { resource: 'arn:aws:kms:us-east-1:123456789012:key/k1', accountId: '123456789012' },
    contextVariables: { 'kms:EncryptionContext:tenantId': 'a', 'kms:EncryptionContext:endpointId': 'b', 'kms:EncryptionContext:secretId': 'c', 'kms:EncryptionContextKeys': ['tenantId','endpointId','secretId'] } },
  identityPolicies: [{ name: 'p', policy }], serviceControlPolicies: [], resourceControlPolicies: [], resourcePolicy: rp,
}, {});
console.log(r.resultType, (r as any).overallResult, JSON.stringify((r as any).errors ?? (r as any).result?.analysis?.identityAnalysis, null, 0).slice(0, 3000));
}
