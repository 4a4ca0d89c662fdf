import { recordedCalls } from '../test/support/aws-calls-run.ts';
import { checkCalls, summary } from '../test/iam/evaluate.ts';
import { synthTemplate } from '../test/iam/synth-template.ts';
const t0 = Date.now();
const template = synthTemplate();
const t1 = Date.now();
const report = await checkCalls(template, recordedCalls());
console.log(summary(report));
console.log('synth ms', t1 - t0, 'check ms', Date.now() - t1);
