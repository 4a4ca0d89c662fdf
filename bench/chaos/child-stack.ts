import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { StackInfo } from '../../infra/local/control-routes.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const READY_LINE = 'Ctrl-C stops everything.';

export interface ChildStackOptions {
  dataDir: string;
  port: number;
  env: Record<string, string>;
  /** Lines the stack prints, for the chaos run's log. */
  onOutput?: (line: string) => void;
}

/**
 * `npm start` on a data folder, as a child in a process group of its own (detached), so one
 * SIGKILL of the group takes the gateway, the stream reader, the queue and DynamoDB Local's Java
 * down at once, as a host dying would.
 */
export class ChildStack {
  private child?: ChildProcess;
  info?: StackInfo;
  starts = 0;

  constructor(private readonly options: ChildStackOptions) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.options.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the stack and waits for its banner (every part started), at most `timeoutMs`. */
  async start(timeoutMs = 120_000): Promise<StackInfo> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--data-dir', this.options.dataDir], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...this.options.env, PORT: String(this.options.port) },
    });
    this.child = child;
    this.starts++;
    // Detached, the group would outlive a driver that dies or is interrupted: take it along.
    if (this.starts === 1) process.once('exit', () => this.killNow());
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the local stack did not start within ${timeoutMs} ms`)), timeoutMs);
      let seen = '';
      const onData = (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        for (const line of text.split('\n')) if (line.trim()) this.options.onOutput?.(line);
        seen = (seen + text).slice(-4000);
        if (seen.includes(READY_LINE)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the local stack exited while starting (${code ?? signal}): ${seen.slice(-1500)}`));
      });
    });
    const response = await fetch(`${this.baseUrl}/_local/stack`);
    this.info = (await response.json()) as StackInfo;
    return this.info;
  }

  private killNow(): void {
    try {
      if (this.child?.pid && this.running) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }

  /** SIGKILL to the whole group: nothing gets to clean up, flush or finish a write. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child?.pid || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(-child.pid, 'SIGKILL');
    await exited;
    // The group's other members (Java) die with it; wait until none is left holding the port or the files.
    await waitForGroupGone(child.pid);
  }

  /** The graceful stop of `npm start` (SIGTERM), used once the run is over. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child?.pid || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    process.kill(-child.pid, 'SIGTERM');
    const timer = setTimeout(() => this.kill(), 15_000);
    await exited;
    clearTimeout(timer);
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* the group is gone */
    }
    await waitForGroupGone(child.pid);
  }
}

const waitForGroupGone = async (pgid: number): Promise<void> => {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`process group ${pgid} is still alive after SIGKILL`);
};
