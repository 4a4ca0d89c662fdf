/**
 * Duration segments (Vidal et al. 2013; PyVRP's DurationSegment, pyvrp/cpp/DurationSegment.h): a
 * run of stops summed up as its least duration, time warp, and the interval of start times that
 * achieve them, so joining a prefix, a new stop and a suffix gives the route's least duration in
 * O(1). A segment holds one window per stop: with several, the window the current schedule serves
 * it in, so under several windows the price of an insertion is an estimate (its feasibility is
 * checked exactly elsewhere).
 */
export class Segments {
  readonly dur: Float64Array;
  readonly tw: Float64Array;
  readonly early: Float64Array;
  readonly late: Float64Array;

  constructor(size: number) {
    this.dur = new Float64Array(size);
    this.tw = new Float64Array(size);
    this.early = new Float64Array(size);
    this.late = new Float64Array(size);
  }

  copyRange(src: Segments, from: number, count: number): void {
    this.dur.set(src.dur.subarray(from, from + count), from);
    this.tw.set(src.tw.subarray(from, from + count), from);
    this.early.set(src.early.subarray(from, from + count), from);
    this.late.set(src.late.subarray(from, from + count), from);
  }

  set(i: number, dur: number, tw: number, early: number, late: number): void {
    this.dur[i] = dur;
    this.tw[i] = tw;
    this.early[i] = early;
    this.late[i] = late;
  }
}

/** Where `merge` writes its result: each search owns one, so the hot loop allocates nothing. */
export interface Merged {
  dur: number;
  tw: number;
  early: number;
  late: number;
}

export const newMerged = (): Merged => ({ dur: 0, tw: 0, early: 0, late: 0 });

/** Segment (d1, w1, e1, l1), travel `edge`, then segment (d2, w2, e2, l2), into `out`. */
export function merge(out: Merged, d1: number, w1: number, e1: number, l1: number, edge: number, d2: number, w2: number, e2: number, l2: number): void {
  const atSecond = d1 - w1 + edge;
  const diffTw = e1 + atSecond > l2 ? e1 + atSecond - l2 : 0;
  const diffWait = e2 - atSecond > l1 ? e2 - atSecond - l1 : 0;
  out.dur = d1 + d2 + edge + diffWait;
  out.tw = w1 + w2 + diffTw;
  out.early = Math.max(e2 - atSecond, e1) - diffWait;
  out.late = Math.min(l2 - atSecond, l1) + diffTw;
}
