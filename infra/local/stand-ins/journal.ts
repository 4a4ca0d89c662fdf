import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * An append-only file of JSON lines, so a stand-in of a durable cloud service (SQS, EventBridge
 * Scheduler) keeps its state across a crash of the local stack, as the service would. Each entry
 * is one write; a line cut by a kill mid-write is the last one and is dropped on reading, so the
 * entry it held counts as never made (the operation never returned).
 */
export class Journal<T> {
  constructor(readonly file: string) {}

  read(): T[] {
    if (!existsSync(this.file)) return [];
    const entries: T[] = [];
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        entries.push(JSON.parse(line) as T);
      } catch {
        break; // the torn tail of a write a kill cut short
      }
    }
    return entries;
  }

  append(entry: T): void {
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
  }

  /** Replaces the whole journal (its live entries after a restart): written aside, then renamed, so a kill leaves the old file or the new one. */
  rewrite(entries: T[]): void {
    const aside = `${this.file}.next`;
    writeFileSync(aside, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
    renameSync(aside, this.file);
  }
}
