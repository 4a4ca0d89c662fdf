import type { DueKind } from './care-schemas.ts';

/** The due list's `text`: one short Spanish sentence a dispatcher reads as it is. */
const names: Record<DueKind, string> = {
  technical_review: 'Revisión técnica',
  circulation_permit: 'Permiso de circulación',
  soap: 'SOAP',
  service: 'Mantención',
  service_km: 'Mantención por kilometraje',
};

const km = new Intl.NumberFormat('es-CL', { maximumFractionDigits: 0 });
const days = (n: number) => (n === 1 ? '1 día' : `${n} días`);
/** 2026-03-31 → 31-03-2026, as dates are written in Chile. */
const chileanDate = (date: string) => date.split('-').reverse().join('-');

export const dateText = (kind: DueKind, label: string, date: string, daysLeft: number): string => {
  const what = `${names[kind]} de ${label}`;
  if (daysLeft < 0) return `${what}: venció hace ${days(-daysLeft)} (${chileanDate(date)}).`;
  if (daysLeft === 0) return `${what}: vence hoy.`;
  return `${what}: vence en ${days(daysLeft)} (${chileanDate(date)}).`;
};

export const kmText = (label: string, due: { dueKm: number; estimatedKm: number; leftKm: number }, fromLastReading: boolean): string => {
  const what = `${names.service_km} de ${label}`;
  const basis = fromLastReading ? 'según la última lectura' : 'estimado';
  const at = `${km.format(due.estimatedKm)} km ${basis}, pauta a los ${km.format(due.dueKm)} km`;
  if (due.leftKm < 0) return `${what}: atrasada por ${km.format(-due.leftKm)} km (${at}).`;
  if (due.leftKm === 0) return `${what}: corresponde hoy (${at}).`;
  return `${what}: faltan ${km.format(due.leftKm)} km (${at}).`;
};
