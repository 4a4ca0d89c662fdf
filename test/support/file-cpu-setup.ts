import { afterAll, inject } from 'vitest';
import { fileCpuMeter } from './file-cpu.ts';

// A setup file: runs in the file's worker before the file. Its afterAll runs after the file's
// own (after hooks run as a stack), so the file's stack has stopped when the meter reads.
const pids = inject('dynamoPids') ?? [];
const worker = Math.max(1, Number(process.env.VITEST_POOL_ID) || 1);
const done = fileCpuMeter(pids[(worker - 1) % Math.max(1, pids.length)]);
afterAll((suite) => done((suite as { filepath?: string }).filepath ?? ''));
