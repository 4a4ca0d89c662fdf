import { describe, expect, it } from 'vitest';
import { classifyQuestion, questionKinds } from '../../../functions/assistant/classifier/index.ts';
import { fleet, labelledQuestions, now, timeZone } from './labelled-questions.ts';

interface Tally { right: number; total: number }

const ctx = { vehicles: fleet, timeZone, now };
const results = labelledQuestions.map((entry) => ({ entry, got: classifyQuestion(entry.text, ctx) }));

function tally(rows: typeof results, field: 'question' | 'vehicle' | 'date'): Tally {
  const stated = rows.filter(({ entry }) => entry[field] !== undefined);
  const right = stated.filter(({ entry, got }) => {
    if (field === 'question') return got.question === entry.question;
    if (field === 'vehicle') return got.vehicleId === (entry.vehicle ?? null);
    return got.date === (entry.date ?? null);
  }).length;
  return { right, total: stated.length };
}

const ratio = (t: Tally) => (t.total === 0 ? 1 : t.right / t.total);
const cell = (t: Tally) => (t.total === 0 ? '-' : `${(ratio(t) * 100).toFixed(1)}% (${t.right}/${t.total})`);

describe('assistant classifier on the labelled questions', () => {
  const overall = {
    question: tally(results, 'question'),
    vehicle: tally(results, 'vehicle'),
    date: tally(results, 'date'),
  };

  it('prints accuracy per kind and overall', () => {
    const table: Record<string, Record<string, string>> = {};
    for (const kind of [...questionKinds, null]) {
      const rows = results.filter(({ entry }) => entry.question === kind);
      table[kind ?? '(none)'] = {
        question: cell(tally(rows, 'question')),
        vehicle: cell(tally(rows, 'vehicle')),
        date: cell(tally(rows, 'date')),
      };
    }
    table.overall = { question: cell(overall.question), vehicle: cell(overall.vehicle), date: cell(overall.date) };
    console.table(table);
    const misses = results.filter(({ entry, got }) =>
      got.question !== entry.question
      || (entry.vehicle !== undefined && got.vehicleId !== entry.vehicle)
      || (entry.date !== undefined && got.date !== entry.date));
    if (misses.length > 0) {
      console.log('misclassified:\n' + misses
        .map(({ entry, got }) => `  ${JSON.stringify(entry.text)} expected ${entry.question}/${entry.vehicle ?? '-'}/${entry.date ?? '-'}`
          + ` got ${got.question}/${got.vehicleId ?? '-'}/${got.date ?? '-'}`)
        .join('\n'));
    }
    expect(labelledQuestions.length).toBeGreaterThanOrEqual(320);
  });

  it('has enough examples of every kind', () => {
    for (const kind of questionKinds) {
      expect(labelledQuestions.filter((q) => q.question === kind).length, kind).toBeGreaterThanOrEqual(20);
    }
    expect(labelledQuestions.filter((q) => q.question === null).length).toBeGreaterThanOrEqual(30);
  });

  it('gets the kind right at least 95% of the time', () => {
    expect(ratio(overall.question)).toBeGreaterThanOrEqual(0.95);
  });

  it('gets the vehicle right at least 95% of the time', () => {
    expect(ratio(overall.vehicle)).toBeGreaterThanOrEqual(0.95);
  });

  it('gets the date right at least 95% of the time', () => {
    expect(ratio(overall.date)).toBeGreaterThanOrEqual(0.95);
  });
});
