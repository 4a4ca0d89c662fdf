import { describe, expect, it } from 'vitest';
import { classifyQuestion } from '../../../functions/assistant/classifier/index.ts';
import { closestWords } from '../../../functions/assistant/classifier/fuzzy.ts';
import { scoreSignals } from '../../../functions/assistant/classifier/kind.ts';
import { fleet, now, timeZone } from './labelled-questions.ts';

const classify = (text: string) => classifyQuestion(text, { vehicles: fleet, timeZone, now });

describe('question words with one letter missing (issue 16)', () => {
  it('reads a five-letter word typed with any one of its letters missing', () => {
    for (const typed of ['onde', 'dnde', 'dode', 'done', 'dond']) expect(closestWords(typed, ['donde', 'rinde']), typed).toEqual(['donde']);
    // A changed letter in a short word is still a guess, and so is a word of four letters.
    expect(closestWords('dobe', ['donde'])).toEqual([]);
    expect(closestWords('pato', ['paro'])).toEqual([]);
  });

  it('classifies questions whose question word lost a letter, as it finds vehicle names that did', () => {
    expect(classify('dnde está el camión 1')).toMatchObject({ question: 'where', vehicleId: 'v1' });
    expect(classify('onde anda el camión 12?')).toMatchObject({ question: 'where', vehicleId: 'v2' });
    expect(classify('whre is truck 12')).toMatchObject({ question: 'where', vehicleId: 'v2' });
    expect(classify('cuánto rnde el móvil 7')).toMatchObject({ question: 'fuel', vehicleId: 'v5' });
    expect(classify('spee of truck 1 yesterday')).toMatchObject({ question: 'speed', vehicleId: 'v1', date: '2026-11-21' });
    expect(classify('velocidad del furgón nrte')).toMatchObject({ question: 'speed', vehicleId: 'v3' });
    expect(classify('furgn norte')).toMatchObject({ vehicleId: 'v3' });
  });

  it('leaves ordinary four-letter words alone', () => {
    for (const word of ['toda', 'here', 'gato', 'cara', 'tres', 'late', 'know', 'turn']) expect(Object.fromEntries(scoreSignals([word])), word).toEqual({});
    expect(classify('is truck 1 here').question).toBeNull();
    expect(classify('toda la info del camión 1').question).toBeNull();
  });
});
