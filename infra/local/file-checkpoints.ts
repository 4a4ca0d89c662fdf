import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Checkpoints } from './stream-reader.ts';

/**
 * The stream reader's positions in a file of the data folder. Each save writes the whole file
 * aside and renames it over the old one: a crash mid-save leaves the previous positions (their
 * records are handed over again, as Lambda does after a failure), never a half-written file
 * that would stop the next start.
 */
export const fileCheckpoints = (file: string): Checkpoints => {
  const read = (): Record<string, Record<string, string>> => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {});
  return {
    load: (consumer) => read()[consumer] ?? {},
    save: (consumer, shardId, sequence) => {
      const all = read();
      all[consumer] = { ...(all[consumer] ?? {}), [shardId]: sequence };
      writeFileSync(`${file}.next`, JSON.stringify(all));
      renameSync(`${file}.next`, file);
    },
  };
};
