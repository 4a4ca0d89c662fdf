/**
 * Classifies a free-text dispatcher question into a kind, a vehicle and a date.
 * Pure: everything time- or tenant-dependent comes in through `ctx`.
 */
import { findDate } from './dates.ts';
import { fold } from './normalise.ts';
import { decideKind } from './kind.ts';
import type { Classification, ClassifyContext } from './types.ts';
import { findVehicle, mentionsUnknownPlate, vehicleTokens } from './vehicles.ts';

export { questionKinds } from './types.ts';
export type { Classification, ClassifyContext, KnownVehicle, QuestionKind } from './types.ts';

export function classifyQuestion(text: string, ctx: ClassifyContext): Classification {
  const tokens = vehicleTokens(text);
  const vehicle = findVehicle(tokens, ctx.vehicles);
  // Numbers in "camión 1 march 3" belong to the vehicle, not to the date.
  const date = findDate(vehicle ? maskTokens(text, tokens.slice(vehicle.start, vehicle.end)) : text, ctx.now, ctx.timeZone);
  // The vehicle's own words must not vote: a label like "Camión Rápido" is not
  // a speed question.
  const rest = vehicle ? [...tokens.slice(0, vehicle.start), ...tokens.slice(vehicle.end)] : tokens;
  const question = decideKind(rest, { vehicleNamed: vehicle !== null || mentionsUnknownPlate(rest), hasDate: date !== null });
  return { question, vehicleId: vehicle?.id ?? null, date };
}

/** Blanks the first place where `words` appear with only separators between them. */
function maskTokens(text: string, words: string[]): string {
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(escaped.join('[^\\p{L}\\p{N}]*'), 'u');
  return fold(text).replace(pattern, ' ');
}
