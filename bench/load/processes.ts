import { readdirSync, readFileSync } from 'node:fs';

/** Resident memory of a process in bytes, from /proc/<pid>/status (Linux), or undefined once it is gone. */
export const residentBytes = (pid: number): number | undefined => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m);
    return line ? Number(line[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
};

/** The processes whose parent is `pid` and whose command is `name` (DynamoDB Local is the stack's `java` child). */
export const childrenNamed = (pid: number, name: string): number[] => {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read around its parentheses.
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid && comm === name) found.push(Number(entry));
    } catch {
      /* the process ended while we looked */
    }
  }
  return found;
};

/** The machine's 1-minute load average (it is shared with other sessions, so the figures say what it was). */
export const loadAverage = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
