import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { PlanningProblem } from '../../shared/planning/problem.ts';

export interface SolomonCustomer {
  id: number;
  x: number;
  y: number;
  demand: number;
  ready: number;
  due: number;
  service: number;
}

/** A Solomon-format instance as written: customer 0 is the depot. */
export interface SolomonInstance {
  name: string;
  vehicleCount: number;
  capacity: number;
  customers: SolomonCustomer[];
}

export function readSolomon(path: string): SolomonInstance {
  const text = readFileSync(path, 'utf8');
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const name = lines.find((l) => l.length > 0) ?? basename(path, '.txt');
  let vehicleCount = NaN;
  let capacity = NaN;
  const customers: SolomonCustomer[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (/^NUMBER\s+CAPACITY/i.test(lines[i])) {
      const next = lines.slice(i + 1).find((l) => l.length > 0) ?? '';
      [vehicleCount, capacity] = next.split(/\s+/).map(Number);
      continue;
    }
    const fields = lines[i].split(/\s+/);
    if (fields.length === 7 && fields.every((f) => /^-?\d+(\.\d+)?$/.test(f))) {
      const [id, x, y, demand, ready, due, service] = fields.map(Number);
      customers.push({ id, x, y, demand, ready, due, service });
    }
  }
  if (!Number.isFinite(vehicleCount) || !Number.isFinite(capacity) || customers.length < 2 || customers[0].id !== 0) {
    throw new Error(`${path}: not a Solomon-format instance`);
  }
  return { name, vehicleCount, capacity, customers };
}

/** Euclidean distance in double precision, no rounding; travel time equals distance. */
export function euclidean(a: SolomonCustomer, b: SolomonCustomer): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/** The instance as the optimizer's port sees it: the distance objective, the instance's fleet. */
export function toProblem(instance: SolomonInstance): PlanningProblem {
  const points = instance.customers;
  const size = points.length;
  const matrix = new Float64Array(size * size);
  for (let i = 0; i < size; i++) for (let j = 0; j < size; j++) matrix[i * size + j] = euclidean(points[i], points[j]);
  const depot = points[0];
  return {
    distance: matrix,
    duration: matrix,
    objective: 'distance',
    orders: points.slice(1).map((c) => ({ windows: [[c.ready, c.due] as const], service: c.service, load: [c.demand, 0] as const, skills: [] })),
    vehicles: Array.from({ length: instance.vehicleCount }, () => ({
      shiftStart: depot.ready,
      shiftEnd: depot.due,
      capacity: [instance.capacity, Infinity] as const,
      skills: [],
      maxStops: size - 1,
    })),
  };
}
