import type { Model } from './model.ts';

/** Scratch buffers of one search, allocated once so iterations allocate nothing. */
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

  constructor(m: Model) {
    this.routeStamp = new Int32Array(m.vehicles);
    this.classStamp = new Int32Array(m.classCount);
    this.touched = new Int32Array(m.vehicles);
    this.touchedStamp = new Int32Array(m.vehicles);
    this.drop = new Uint8Array(m.size);
    this.removed = new Int32Array(m.size);
    this.pending = new Int32Array(m.size);
    this.keys = new Float64Array(m.size);
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
