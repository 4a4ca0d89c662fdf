import { beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, sharedSynth, type Resource, type Synthesized } from './synth.ts';

let synth: Synthesized;
// The run's shared synthesis: the policies and environment checked here do not depend on the bundles.
beforeAll(async () => {
  synth = await sharedSynth({});
}, 180_000);

describe('dispatch guides in the cloud (issue 17)', () => {
  it('lets the field function send to the import queue, which its worker issues guides from, and nothing more', () => {
    const field = synth.stack.functions.byGroup.get('field')!;
    const imports = synth.stack.imports!;
    const queueId = synth.logicalId(imports.queue);
    const fn = (synth.template.toJSON().Resources as Record<string, Resource>)[synth.logicalId(field.function)]!;
    expect(fn.Properties.Environment.Variables.IMPORT_QUEUE_URL).toEqual({ Ref: queueId });
    const statements = synth.statementsOf(synth.logicalId(field.role));
    const sqs = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqs).toEqual([expect.objectContaining({ Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [queueId, 'Arn'] } })]);
    // It reads an internal transfer's destination among the connection's live offices (decisions 16):
    // it opens tokens, it never seals one (only the integrations function connects).
    const kms = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('kms:'))).flatMap(actionsOf);
    expect(kms).toContain('kms:Decrypt');
    expect(kms.filter((a) => a !== 'kms:Decrypt')).toEqual([]);
  });
});
