/**
 * Decides the question kind from keyword scores.
 *
 * Precedence:
 * 1. A topic (care, fuel, speed, idle, outside, stops, where) wins over the
 *    period kinds whenever it reaches 3 points: "combustible esta semana" is
 *    fuel, "¿dónde estuvo hoy?" is where; the period goes to `date` or is
 *    implied. Ties between topics follow the order in `topicKinds`, most
 *    specific first.
 * 2. Otherwise an activity question (km, recorrido, resumen, "qué hizo") takes
 *    its kind from the period: a week word gives week, a month word month,
 *    anything else (hoy, ayer, a weekday, no period at all) today, because
 *    `today` is the daily activity summary and `date` says which day.
 * 3. A vehicle or fleet word alone with a period ("¿y el camión 3 ayer?") is
 *    also an activity question. A lone "hoy" or "esta semana" is not.
 */
import { closestWords } from './fuzzy.ts';
import type { QuestionKind } from './types.ts';
import { protectedWords, topicKinds, vocabulary } from './vocabulary.ts';
import type { Signal } from './vocabulary.ts';

const THRESHOLD = 3;

interface Entry { signal: Signal; weight: number }

const phrases = new Map<string, Entry[]>();
const wordSignals = new Map<string, Set<Signal>>();
let longestPhrase = 1;

for (const [signal, table] of Object.entries(vocabulary) as Array<[Signal, Record<string, string[]>]>) {
  for (const [weight, list] of Object.entries(table)) {
    for (const phrase of list) {
      const entries = phrases.get(phrase) ?? [];
      entries.push({ signal, weight: Number(weight) });
      phrases.set(phrase, entries);
      const words = phrase.split(' ');
      longestPhrase = Math.max(longestPhrase, words.length);
      for (const w of words) {
        const set = wordSignals.get(w) ?? new Set<Signal>();
        set.add(signal);
        wordSignals.set(w, set);
      }
    }
  }
}

/** Maps a misspelt token onto the vocabulary, unless that would be a guess. */
function canonical(token: string): string {
  if (wordSignals.has(token) || protectedWords.has(token)) return token;
  const candidates = closestWords(token, wordSignals.keys());
  if (candidates.length === 0) return token;
  const signals = candidates.map((c) => [...wordSignals.get(c)!].sort().join());
  // Candidates that point at different kinds ("parada"/"parado") are a guess.
  return signals.every((s) => s === signals[0]) ? candidates[0] : token;
}

export function scoreSignals(tokens: readonly string[]): Map<Signal, number> {
  const words = tokens.map(canonical);
  const scores = new Map<Signal, number>();
  let i = 0;
  while (i < words.length) {
    let used = 1;
    for (let len = Math.min(longestPhrase, words.length - i); len >= 1; len--) {
      const entries = phrases.get(words.slice(i, i + len).join(' '));
      if (!entries) continue;
      for (const e of entries) scores.set(e.signal, (scores.get(e.signal) ?? 0) + e.weight);
      used = len;
      break;
    }
    i += used;
  }
  return scores;
}

export interface KindHints {
  /** A known vehicle was named; its tokens should already be removed. */
  vehicleNamed: boolean;
  hasDate: boolean;
}

export function decideKind(tokens: readonly string[], hints: KindHints): QuestionKind | null {
  const s = scoreSignals(tokens);
  const get = (k: Signal) => s.get(k) ?? 0;
  const fleet = hints.vehicleNamed || get('fleet') > 0 ? 1 : 0;

  let topic: QuestionKind | null = null;
  let topicScore = 0;
  for (const k of topicKinds) {
    if (get(k) > topicScore) {
      topic = k;
      topicScore = get(k);
    }
  }
  if (topic && topicScore + fleet >= THRESHOLD) return topic;

  const week = get('week');
  const month = get('month');
  const hasPeriod = week > 0 || month > 0 || get('day') > 0 || hints.hasDate;
  const activity = get('activity');
  const isActivity = activity + fleet + (hasPeriod ? 1 : 0) >= THRESHOLD || (hasPeriod && fleet > 0);
  if (!isActivity) return null;
  if (week > 0 && week >= month) return 'week';
  if (month > 0) return 'month';
  return 'today';
}
