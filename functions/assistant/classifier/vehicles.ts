/**
 * Finds which of the tenant's vehicles a question names, by plate or by label.
 *
 * Choice among several matches: a plate first, since it identifies one vehicle
 * even when retired; then active vehicles (a retired "Camión 3" keeps its label
 * after being replaced); then the longer label ("Camión 12" over "Camión 1").
 */
import { allowedDistance, editDistance } from './fuzzy.ts';
import { splitAlnum, tokenize } from './normalise.ts';
import type { KnownVehicle } from './types.ts';

export interface VehicleMatch {
  id: string;
  /** Token span [start, end) in splitAlnum(tokenize(text)), so callers can ignore it. */
  start: number;
  end: number;
}

/** Words a dispatcher puts between a vehicle word and its number: "camión nº 3". */
const fillers = new Set(['n', 'no', 'nro', 'nr', 'num', 'numero', 'number']);

/** English (and casual) names for the vehicle-type words Chilean labels start with. */
const synonyms: Record<string, string[]> = {
  camion: ['truck', 'lorry'],
  camioneta: ['pickup', 'van'],
  furgon: ['van', 'furgoneta'],
  movil: ['mobile', 'unit', 'unidad'],
  vehiculo: ['vehicle'],
};

const PLATE_BONUS = 1000;
const MAX_PLATE_TOKENS = 6;

export function vehicleTokens(text: string): string[] {
  return splitAlnum(tokenize(text));
}

export function findVehicle(tokens: string[], vehicles: readonly KnownVehicle[]): VehicleMatch | null {
  let best: { match: VehicleMatch; active: boolean; score: number } | null = null;
  for (const v of vehicles) {
    const found = [matchPlate(tokens, v.plate), matchLabel(tokens, v.label)];
    for (const f of found) {
      if (!f) continue;
      const plate = f.score >= PLATE_BONUS;
      const bestPlate = best !== null && best.score >= PLATE_BONUS;
      const better = !best
        || (plate && !bestPlate)
        || (plate === bestPlate && v.active && !best.active)
        || (plate === bestPlate && v.active === best.active && f.score > best.score);
      if (better) best = { match: { id: v.id, start: f.start, end: f.end }, active: v.active, score: f.score };
    }
  }
  return best?.match ?? null;
}

interface Span { start: number; end: number; score: number }

function matchPlate(tokens: string[], plate: string): Span | null {
  const compact = plate.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (compact.length < 4) return null;
  for (let start = 0; start < tokens.length; start++) {
    let joined = '';
    for (let end = start; end < tokens.length && end - start < MAX_PLATE_TOKENS; end++) {
      joined += tokens[end];
      if (joined === compact) return { start, end: end + 1, score: PLATE_BONUS + compact.length };
      if (!compact.startsWith(joined)) break;
    }
  }
  return null;
}

function sameWord(text: string, label: string): boolean {
  if (text === label) return true;
  if (synonyms[label]?.includes(text)) return true;
  // Numbers must match exactly: "camión 1" is not "camión 12".
  if (/\d/.test(text) || /\d/.test(label)) return false;
  const allowed = allowedDistance(text, label);
  return allowed > 0 && editDistance(text, label, allowed) <= allowed;
}

function matchLabel(tokens: string[], label: string): Span | null {
  const wanted = splitAlnum(tokenize(label));
  if (wanted.length === 0) return null;
  const score = wanted.join('').length;
  for (let start = 0; start < tokens.length; start++) {
    let pos = start;
    let ok = true;
    for (let k = 0; k < wanted.length && ok; k++) {
      if (k > 0) while (pos < tokens.length && fillers.has(tokens[pos]) && tokens[pos] !== wanted[k]) pos++;
      ok = pos < tokens.length && sameWord(tokens[pos], wanted[k]);
      pos++;
    }
    if (ok) return { start, end: pos, score };
  }
  return null;
}

/** Chilean plate shapes: BBCC12 (since 2007), AB1234 (before), and motorcycles' BCD12 / BCD012. */
const plateShape = /^(?:[a-z]{4}\d{2}|[a-z]{2}\d{4}|[a-z]{3}\d{2,3})$/;
/** Short words that, followed by a number, only look like a plate: "km 2024", "el 1234". */
const notPlateLetters = new Set(['km', 'kms', 'el', 'la', 'de', 'en', 'al', 'lo', 'los', 'las', 'del', 'on', 'at', 'in', 'of', 'to', 'the', 'nro', 'num']);

/**
 * True when the text names a plate the tenant does not have: the question is still about a
 * vehicle ("¿dónde está GHJK77?"), so it is classified as one, with vehicleId null.
 */
export function mentionsUnknownPlate(tokens: readonly string[]): boolean {
  for (let start = 0; start < tokens.length; start++) {
    let joined = '';
    for (let end = start; end < tokens.length && end - start < 3; end++) {
      joined += tokens[end];
      const letters = joined.match(/^[a-z]+/)?.[0] ?? '';
      if (plateShape.test(joined) && !notPlateLetters.has(letters)) return true;
    }
  }
  return false;
}
