import { join } from 'node:path';
import { inject } from 'vitest';
import { awsCallRecording } from '../../shared/aws-calls/port-calls.ts';
import { recordCallsTo } from '../../shared/aws-calls/recorder.ts';
import { wrapPorts } from '../../shared/ports/wrappers.ts';

// A setup file: runs in every test process before the test file is imported, so before any port
// or table client is built. The recording stands in front of the ports from here: they never
// import it (issue 29).
recordCallsTo(join(inject('awsCallsDir'), `${process.pid}.jsonl`));
wrapPorts(awsCallRecording);
