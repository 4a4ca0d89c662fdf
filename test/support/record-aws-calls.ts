import { join } from 'node:path';
import { inject } from 'vitest';
import { recordCallsTo } from '../../shared/aws-calls/recorder.ts';

// A setup file: runs in every test process before the test file is imported.
recordCallsTo(join(inject('awsCallsDir'), `${process.pid}.jsonl`));
