import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where each test file's time went, for docs/testing.md: its worker's CPU (the file's stack, its
 * handlers and consumers run there) and its DynamoDB Locals' (its worker's and the one its stack
 * leased), and the child processes it started and saw end (Chromium, `tsx`, a synthesis, a
 * DynamoDB Local of its own), one JSON line per file. Wall time is the file's own, beside whatever
 * else ran.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
export const fileCpuDir = join(root, 'test-artifacts', 'file-cpu');

export interface FileCpu {
  file: string;
  wallSeconds: number;
  workerCpuSeconds: number;
  dynamoCpuSeconds: number | null;
  /** Child processes the worker started and reaped while the file ran: its own DynamoDB Local, Chromium, `tsx`. */
  childCpuSeconds: number | null;
}

/** A run starts with no lines: the summary is of this run's files only. */
export const startFileCpu = (): void => {
  rmSync(fileCpuDir, { recursive: true, force: true });
  mkdirSync(fileCpuDir, { recursive: true });
};

const statTicks = (pid: number | 'self' | undefined, first: number): number | null => {
  if (!pid || !existsSync(`/proc/${pid}/stat`)) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[first]) + Number(fields[first + 1])) / 100;
  } catch {
    return null;
  }
};

/** CPU seconds a process has used so far (Linux); null elsewhere or once it is gone. */
// utime and stime, fields 14 and 15 of stat (11 and 12 after the command): clock ticks of 1/100 s on Linux.
export const processCpuSeconds = (pid: number | undefined): number | null => statTicks(pid, 11);

/** CPU seconds of this process's children that have ended and been reaped (cutime, cstime). */
const reapedChildrenCpuSeconds = (): number | null => statTicks('self', 13);

// On globalThis: the setup file and the test file may each hold their own copy of this module.
const leased = globalThis as { fileDynamoCpuSeconds?: number };

/** The CPU the file's leased DynamoDB Local (test/support/dynamo-pool.ts) spent while the file held it. */
export const noteFileDynamoCpu = (seconds: number | null): void => {
  if (seconds !== null) leased.fileDynamoCpuSeconds = (leased.fileDynamoCpuSeconds ?? 0) + seconds;
};

/** Starts measuring; the function returned writes the file's line. */
export const fileCpuMeter = (dynamoPid: number | undefined) => {
  leased.fileDynamoCpuSeconds = 0;
  const started = { at: Date.now(), worker: process.cpuUsage(), dynamo: processCpuSeconds(dynamoPid), children: reapedChildrenCpuSeconds() };
  return (file: string): void => {
    const worker = process.cpuUsage(started.worker);
    const dynamo = processCpuSeconds(dynamoPid);
    const children = reapedChildrenCpuSeconds();
    const line: FileCpu = {
      file: relative(root, file),
      wallSeconds: (Date.now() - started.at) / 1000,
      workerCpuSeconds: (worker.user + worker.system) / 1e6,
      dynamoCpuSeconds: (dynamo !== null && started.dynamo !== null ? dynamo - started.dynamo : 0) + (leased.fileDynamoCpuSeconds ?? 0),
      childCpuSeconds: children !== null && started.children !== null ? children - started.children : null,
    };
    mkdirSync(fileCpuDir, { recursive: true });
    appendFileSync(join(fileCpuDir, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
  };
};

const total = (f: FileCpu): number => f.workerCpuSeconds + (f.dynamoCpuSeconds ?? 0) + (f.childCpuSeconds ?? 0);

/** The run's files, most CPU first, into test-artifacts/file-cpu.json (the global teardown). */
export const summarizeFileCpu = (): FileCpu[] => {
  if (!existsSync(fileCpuDir)) return [];
  const round = (n: number | null) => (n === null ? null : Math.round(n * 10) / 10);
  const files = readdirSync(fileCpuDir)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) => readFileSync(join(fileCpuDir, name), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as FileCpu))
    .map((f) => ({ ...f, wallSeconds: round(f.wallSeconds)!, workerCpuSeconds: round(f.workerCpuSeconds)!, dynamoCpuSeconds: round(f.dynamoCpuSeconds), childCpuSeconds: round(f.childCpuSeconds ?? null) }))
    .sort((a, b) => total(b) - total(a));
  writeFileSync(join(root, 'test-artifacts', 'file-cpu.json'), `${JSON.stringify(files, null, 1)}\n`);
  return files;
};
