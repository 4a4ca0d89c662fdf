/**
 * Finds the one date a question refers to.
 *
 * When several expressions appear the most explicit wins: numeric dates, then
 * "3 de marzo", then relative words (hoy, ayer...), then weekdays, then a bare
 * "el 15"; ties go to the first one in the text. Ranges ("esta semana", "el mes
 * pasado") are not dates: the kind carries them.
 *
 * Rules for words without a year or week:
 * - Day and month without year, or "el 15": the latest such day not after today,
 *   because questions are about what happened (25/12 asked in November is last
 *   Christmas).
 * - "el lunes", "lunes pasado", "last monday": the latest Monday strictly before
 *   today (on a Sunday "el domingo" is a week ago; "hoy" says today).
 * - "este lunes"/"this monday": the Monday of the current Monday-based week,
 *   which may be ahead (maintenance due "este viernes").
 * - "el próximo lunes"/"next monday"/"el lunes que viene": the next one after today.
 * - "mañana" is tomorrow except in "esta mañana" (today) and "la/en la/por la
 *   mañana" (a time of day, which adds nothing).
 */
import { addDays, fullYear, isoDate, latestPastDayMonth, latestPastDayOfMonth, localToday, makeDate } from './calendar.ts';
import { fold, tokenize } from './normalise.ts';

const months: Record<string, number> = {};
const monthNames = [
  ['enero', 'ene', 'january', 'jan'], ['febrero', 'feb', 'february'], ['marzo', 'mar', 'march'],
  ['abril', 'abr', 'april', 'apr'], ['mayo', 'may'], ['junio', 'jun', 'june'], ['julio', 'jul', 'july'],
  ['agosto', 'ago', 'august', 'aug'], ['septiembre', 'setiembre', 'sep', 'sept', 'set', 'september'],
  ['octubre', 'oct', 'october'], ['noviembre', 'nov', 'november'], ['diciembre', 'dic', 'december', 'dec'],
];
monthNames.forEach((names, i) => names.forEach((n) => (months[n] = i + 1)));

/** JavaScript getUTCDay numbering: 0 = Sunday. */
const weekdays: Record<string, number> = {
  domingo: 0, lunes: 1, martes: 2, miercoles: 3, jueves: 4, viernes: 5, sabado: 6,
  sunday: 0, monday: 1, tuesday: 2, wednesday: 3, thursday: 4, friday: 5, saturday: 6,
};

const numberWords: Record<string, number> = {
  un: 1, uno: 1, una: 1, dos: 2, tres: 3, cuatro: 4, cinco: 5, seis: 6, siete: 7, ocho: 8, nueve: 9, diez: 10,
  a: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
};

/** Phrase → offset in days from today, longest first so "pasado manana" beats "manana". */
const relative: Array<[string[], number]> = ([
  ['day after tomorrow', 2], ['day before yesterday', -2], ['antes de ayer', -2], ['pasado manana', 2],
  ['esta manana', 0], ['this morning', 0], ['esta noche', 0], ['this afternoon', 0], ['esta tarde', 0],
  ['last night', -1], ['hoy', 0], ['today', 0], ['tonight', 0], ['ayer', -1], ['yesterday', -1], ['anoche', -1],
  ['anteayer', -2], ['antier', -2], ['antiayer', -2], ['manana', 1], ['tomorrow', 1],
] as Array<[string, number]>).map(([p, n]) => [p.split(' '), n]);

/** Words after "el 15" that show it is a quantity, not a day. */
const units = new Set(['km', 'kms', 'kilometros', 'litros', 'lts', 'l', 'minutos', 'min', 'horas', 'h', 'kmh',
  'paradas', 'entregas', 'veces', 'por', 'pesos', 'mil', 'porciento', 'percent', 'miles', 'liters', 'minutes',
  'hours', 'stops', 'deliveries', 'times', 'kph', 'mph']);

interface Candidate { rank: number; position: number; date: Date }

export function findDate(text: string, now: Date, timeZone: string): string | null {
  const today = localToday(now, timeZone);
  const candidates = [...numericDates(fold(text), today), ...wordDates(tokenize(text), today)];
  if (candidates.length === 0) return null;
  candidates.sort((a, b) => a.rank - b.rank || a.position - b.position);
  return isoDate(candidates[0].date);
}

function numericDates(folded: string, today: Date): Candidate[] {
  const found: Candidate[] = [];
  const add = (rank: number, position: number, date: Date | null) => {
    if (date) found.push({ rank, position: position / 1000, date });
  };
  for (const m of folded.matchAll(/(?<![\d/.-])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d/.-]*\d)/g)) {
    add(0, m.index, makeDate(+m[1], +m[2], +m[3]));
  }
  for (const m of folded.matchAll(/(?<![\d/.-])(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/.-]*\d)/g)) {
    add(0, m.index, makeDate(fullYear(+m[4]), +m[3], +m[1]));
  }
  // Day first, as written in Chile; the year is optional only with a slash
  // because "12-34" and "8.5" are usually not dates.
  for (const m of folded.matchAll(/(?<![\d/.-])(\d{1,2})\/(\d{1,2})(?![\d/.-]*\d)/g)) {
    add(0, m.index, latestPastDayMonth(today, +m[2], +m[1]));
  }
  return found;
}

function dayNumber(token: string | undefined): number | null {
  if (token === undefined) return null;
  if (token === 'primero' || token === 'first') return 1;
  const m = /^(\d{1,2})(st|nd|rd|th|ro|do|to|vo|no|o)?$/.exec(token);
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 1 && n <= 31 ? n : null;
}

function yearAt(tokens: string[], i: number): number | null {
  let j = i;
  if (tokens[j] === 'de' || tokens[j] === 'del' || tokens[j] === 'of') j++;
  return /^\d{4}$/.test(tokens[j] ?? '') ? Number(tokens[j]) : null;
}

function dayMonth(today: Date, month: number, day: number, year: number | null): Date | null {
  return year === null ? latestPastDayMonth(today, month, day) : makeDate(year, month, day);
}

function startsWith(tokens: string[], i: number, phrase: string[]): boolean {
  return phrase.every((w, k) => tokens[i + k] === w);
}

function wordDates(tokens: string[], today: Date): Candidate[] {
  const found: Candidate[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const prev = tokens[i - 1];
    // "3 de marzo", "3rd of march", "3 marzo 2025"
    const day = dayNumber(t);
    if (day !== null) {
      let j = i + 1;
      if (tokens[j] === 'de' || tokens[j] === 'of' || tokens[j] === 'del') j++;
      const month = months[tokens[j]];
      if (month) {
        const date = dayMonth(today, month, day, yearAt(tokens, j + 1));
        if (date) found.push({ rank: 1, position: i, date });
        continue;
      }
    }
    // "marzo 3", "march 3rd, 2025"
    if (months[t] && dayNumber(tokens[i + 1]) !== null && !months[tokens[i + 2]]) {
      const date = dayMonth(today, months[t], dayNumber(tokens[i + 1])!, yearAt(tokens, i + 2));
      if (date) found.push({ rank: 1, position: i, date });
      continue;
    }
    const rel = relative.find(([phrase]) => startsWith(tokens, i, phrase));
    if (rel) {
      const [phrase, offset] = rel;
      const timeOfDay = phrase[0] === 'manana' && ['la', 'las', 'en', 'por'].includes(prev ?? '');
      if (!timeOfDay) found.push({ rank: 2, position: i, date: addDays(today, offset) });
      i += phrase.length - 1;
      continue;
    }
    // "hace 3 dias", "3 days ago"
    const count = dayNumber(tokens[i + 1]) ?? numberWords[tokens[i + 1]];
    if ((t === 'hace' || t === 'hacen') && count && /^dias?$/.test(tokens[i + 2] ?? '')) {
      found.push({ rank: 2, position: i, date: addDays(today, -count) });
      continue;
    }
    const ago = dayNumber(t) ?? numberWords[t];
    if (ago && /^days?$/.test(tokens[i + 1] ?? '') && tokens[i + 2] === 'ago') {
      found.push({ rank: 2, position: i, date: addDays(today, -ago) });
      continue;
    }
    if (t in weekdays) {
      found.push({ rank: 3, position: i, date: weekdayDate(tokens, i, today) });
      continue;
    }
    // "el 15", "el dia 15", "on the 15th"
    if ((prev === 'el' || prev === 'dia' || prev === 'the') && day !== null && !units.has(tokens[i + 1] ?? '')) {
      const date = latestPastDayOfMonth(today, day);
      if (date) found.push({ rank: 4, position: i, date });
    }
  }
  return found;
}

function weekdayDate(tokens: string[], i: number, today: Date): Date {
  const target = weekdays[tokens[i]];
  const current = today.getUTCDay();
  const before = tokens.slice(Math.max(0, i - 2), i);
  const after = tokens.slice(i + 1, i + 3);
  const next = before.some((w) => ['proximo', 'proxima', 'next', 'coming'].includes(w))
    || after[0] === 'proximo' || (after[0] === 'que' && after[1] === 'viene');
  if (next) return addDays(today, ((target - current + 6) % 7) + 1);
  if (tokens[i - 1] === 'este' || tokens[i - 1] === 'this') {
    const mondayBased = (d: number) => (d + 6) % 7;
    return addDays(today, mondayBased(target) - mondayBased(current));
  }
  return addDays(today, -(((current - target + 6) % 7) + 1));
}
