import type { Meter } from './budget.ts';
import type { Model } from './model.ts';
import { newMerged } from './segments.ts';

/**
 * Scratch and settings of one search, allocated once so iterations allocate nothing, and owned by
 * the search (nothing lives at module level: two searches in one process share nothing).
 */
export class Work {
  stamp = 0;
  readonly routeStamp: Int32Array;
  readonly classStamp: Int32Array;
  /** Routes changed in this iteration, each once. */
  readonly touched: Int32Array;
  readonly touchedStamp: Int32Array;
  touchedCount = 0;
  touchStamp = 1;
  readonly drop: Uint8Array;
  readonly removed: Int32Array;
  removedCount = 0;
  /** Customers to insert and their sort keys. */
  readonly pending: Int32Array;
  readonly keys: Float64Array;
  /** The price of the position the last route scan found. */
  foundCost = 0;
  readonly merged = newMerged();
  /** Each insertion position is skipped with this probability (SISR's blinks); 0 in the last pass. */
  blinkRate = 0.01;
  /** At most this many routes in use: fleet minimisation forbids opening one beyond its target. */
  routeCap: number;
  /** Earlier leftovers tried again per iteration (all of them when Infinity). */
  retryUnassigned = 20;
  /** The local search's routes under construction, its customers' order, and its clock (local-search.ts). */
  readonly scratchA: Int32Array;
  readonly scratchB: Int32Array;
  readonly lsOrder: Int32Array;
  readonly lastTested: Int32Array;
  readonly lastModified: Int32Array;
  lsClock = 1;

  constructor(
    m: Model,
    readonly meter: Meter,
  ) {
    this.routeStamp = new Int32Array(m.vehicles);
    this.classStamp = new Int32Array(m.classCount);
    this.touched = new Int32Array(m.vehicles);
    this.touchedStamp = new Int32Array(m.vehicles);
    this.drop = new Uint8Array(m.size);
    this.removed = new Int32Array(m.size);
    this.pending = new Int32Array(m.size);
    this.keys = new Float64Array(m.size);
    this.routeCap = m.vehicles;
    this.scratchA = new Int32Array(m.size + 1);
    this.scratchB = new Int32Array(m.size + 1);
    this.lsOrder = new Int32Array(m.size);
    this.lastTested = new Int32Array(m.size);
    this.lastModified = new Int32Array(m.vehicles);
  }

  /** Starts an iteration: nothing touched, nothing removed. */
  begin(): void {
    this.touchStamp++;
    this.touchedCount = 0;
    this.removedCount = 0;
  }

  touch(r: number): void {
    if (this.touchedStamp[r] === this.touchStamp) return;
    this.touchedStamp[r] = this.touchStamp;
    this.touched[this.touchedCount++] = r;
  }
}
