import { earliestStart, latestStart, MAX_WINDOWS, type Model } from './model.ts';
import type { Meter } from './budget.ts';
import { merge, newMerged, Segments } from './segments.ts';

/**
 * One solution: a route per vehicle (route r is vehicle r), stored flat. Position 0 of a route is
 * the depot left, position len + 1 the depot returned to. For each position the route keeps the
 * earliest start of service (`start`; position 0: the shift's start, the last: the earliest
 * arrival back) and the latest arrival that keeps the rest of the route feasible (`lateArr`;
 * position 0: the latest departure, the last: the shift's end), Savelsbergh's forward and backward
 * slack, so a single insertion is checked in O(1) whatever the number of windows.
 */
export class Solution {
  readonly off: Int32Array;
  readonly len: Int32Array;
  readonly nodes: Int32Array;
  readonly start: Float64Array;
  readonly lateArr: Float64Array;
  /** Each position's load so far, per dimension: 2-opt* checks a tail's load in O(1). */
  readonly pre0: Float64Array;
  readonly pre1: Float64Array;
  readonly sum0: Float64Array;
  readonly sum1: Float64Array;
  readonly cost: Float64Array;
  readonly routeOf: Int32Array;
  readonly posOf: Int32Array;
  readonly unassigned: Int32Array;
  readonly unIndex: Int32Array;
  unCount = 0;
  /** Under `duration` only: each position's prefix (`fwd`, depot .. it) and suffix (`bwd`) segment. */
  readonly fwd: Segments | null;
  readonly bwd: Segments | null;
  /** Under `duration`: the window each position is served in by the earliest schedule. */
  readonly window: Uint8Array;
  private readonly merged = newMerged();

  /** `meter` counts the work done here (stops rescheduled and copied) against the search's budget. */
  constructor(
    readonly m: Model,
    readonly meter: Meter,
  ) {
    const V = m.vehicles;
    this.off = new Int32Array(V);
    let total = 0;
    for (let v = 0; v < V; v++) {
      this.off[v] = total;
      total += m.vMaxStops[v] + 2;
    }
    this.len = new Int32Array(V);
    this.nodes = new Int32Array(total);
    this.start = new Float64Array(total);
    this.lateArr = new Float64Array(total);
    this.pre0 = new Float64Array(total);
    this.pre1 = new Float64Array(total);
    this.sum0 = new Float64Array(V);
    this.sum1 = new Float64Array(V);
    this.cost = new Float64Array(V);
    this.routeOf = new Int32Array(m.size).fill(-1);
    this.posOf = new Int32Array(m.size);
    this.unassigned = new Int32Array(m.n);
    this.unIndex = new Int32Array(m.size).fill(-1);
    this.fwd = m.durationObjective ? new Segments(total) : null;
    this.bwd = m.durationObjective ? new Segments(total) : null;
    this.window = new Uint8Array(m.durationObjective ? total : 0);
    for (let c = 1; c <= m.n; c++) this.addUnassigned(c);
    for (let r = 0; r < V; r++) this.refresh(r);
  }

  addUnassigned(c: number): void {
    this.unIndex[c] = this.unCount;
    this.unassigned[this.unCount++] = c;
  }

  dropUnassigned(c: number): void {
    const i = this.unIndex[c];
    const last = this.unassigned[--this.unCount];
    this.unassigned[i] = last;
    this.unIndex[last] = i;
    this.unIndex[c] = -1;
  }

  /** Puts unassigned c at position `pos` (1 .. len + 1) of route r and refreshes the route. */
  insert(c: number, r: number, pos: number): void {
    const o = this.off[r];
    const len = this.len[r];
    for (let i = len + 1; i >= pos; i--) {
      const x = this.nodes[o + i];
      this.nodes[o + i + 1] = x;
      this.posOf[x] = i + 1;
    }
    this.nodes[o + pos] = c;
    this.len[r] = len + 1;
    this.routeOf[c] = r;
    this.posOf[c] = pos;
    this.sum0[r] += this.m.load0[c];
    this.sum1[r] += this.m.load1[c];
    this.dropUnassigned(c);
    this.refresh(r);
  }

  /** Removes the customers flagged in `drop` from route r (the caller refreshes it). */
  compact(r: number, drop: Uint8Array): void {
    const o = this.off[r];
    const len = this.len[r];
    let k = 1;
    for (let i = 1; i <= len; i++) {
      const c = this.nodes[o + i];
      if (drop[c]) {
        this.routeOf[c] = -1;
        this.sum0[r] -= this.m.load0[c];
        this.sum1[r] -= this.m.load1[c];
        this.addUnassigned(c);
      } else {
        this.nodes[o + k] = c;
        this.posOf[c] = k++;
      }
    }
    this.nodes[o + k] = 0;
    this.len[r] = k - 1;
    // Float sums drift when loads come and go; an empty route is exactly empty.
    if (k === 1) this.sum0[r] = this.sum1[r] = 0;
  }

  /** Recomputes route r's schedule, slack and cost from its nodes. */
  refresh(r: number): void {
    const m = this.m;
    const o = this.off[r];
    const len = this.len[r];
    const size = m.size;
    this.meter.work += len + 1;
    this.nodes[o] = 0;
    this.nodes[o + len + 1] = 0;
    let t = m.vStart[r];
    this.start[o] = t;
    let arcSum = 0;
    let prev = 0;
    let l0 = 0;
    let l1 = 0;
    this.pre0[o] = this.pre1[o] = 0;
    for (let i = 1; i <= len + 1; i++) {
      const c = this.nodes[o + i];
      l0 += m.load0[c];
      l1 += m.load1[c];
      this.pre0[o + i] = l0;
      this.pre1[o + i] = l1;
      const a = t + m.service[prev] + m.time[prev * size + c];
      arcSum += m.arc[prev * size + c];
      t = i <= len ? earliestStart(m, c, a) : a;
      this.start[o + i] = t;
      prev = c;
    }
    let late = m.vEnd[r];
    this.lateArr[o + len + 1] = late;
    let next = 0;
    for (let i = len; i >= 1; i--) {
      const c = this.nodes[o + i];
      const ls = latestStart(m, c, late - m.service[c] - m.time[c * size + next]);
      // The latest arrival that still starts service by ls is ls itself (monotone start).
      late = ls;
      this.lateArr[o + i] = late;
      next = c;
    }
    this.lateArr[o] = late - m.time[next];
    this.cost[r] = len === 0 ? 0 : m.durationObjective ? this.routeDuration(r) : arcSum;
    if (this.fwd) this.refreshSegments(r);
  }

  private refreshSegments(r: number): void {
    const m = this.m;
    const o = this.off[r];
    const len = this.len[r];
    const size = m.size;
    const f = this.fwd!;
    const b = this.bwd!;
    const merged = this.merged;
    this.meter.work += 2 * (len + 1);
    for (let i = 1; i <= len; i++) {
      const c = this.nodes[o + i];
      const arrival = this.start[o + i - 1] + m.service[this.nodes[o + i - 1]] + m.time[this.nodes[o + i - 1] * size + c];
      let w = 0;
      while (w < m.twCount[c] - 1 && arrival > m.twClose[c * MAX_WINDOWS + w]) w++;
      this.window[o + i] = w;
    }
    f.set(o, 0, 0, m.vStart[r], m.vEnd[r]);
    for (let i = 1; i <= len + 1; i++) {
      const c = this.nodes[o + i];
      const prev = this.nodes[o + i - 1];
      const k = c * MAX_WINDOWS + this.window[o + i];
      const e = i <= len ? m.twOpen[k] : m.vStart[r];
      const l = i <= len ? m.twClose[k] : m.vEnd[r];
      merge(merged, f.dur[o + i - 1], f.tw[o + i - 1], f.early[o + i - 1], f.late[o + i - 1], m.time[prev * size + c], m.service[c], 0, e, l);
      f.set(o + i, merged.dur, merged.tw, merged.early, merged.late);
    }
    b.set(o + len + 1, 0, 0, m.vStart[r], m.vEnd[r]);
    for (let i = len; i >= 0; i--) {
      const c = this.nodes[o + i];
      const next = this.nodes[o + i + 1];
      const k = c * MAX_WINDOWS + this.window[o + i];
      const e = i >= 1 ? m.twOpen[k] : m.vStart[r];
      const l = i >= 1 ? m.twClose[k] : m.vEnd[r];
      merge(merged, m.service[c], 0, e, l, m.time[c * size + next], b.dur[o + i + 1], b.tw[o + i + 1], b.early[o + i + 1], b.late[o + i + 1]);
      b.set(o + i, merged.dur, merged.tw, merged.early, merged.late);
    }
  }

  /**
   * Least time from leaving the depot to coming back: the better of leaving as late as the route
   * allows, and keeping the earliest return while leaving as late as that return allows (the two
   * agree with one window per order; with several, leaving later may push a stop into a later
   * window, so both are tried).
   */
  private routeDuration(r: number): number {
    const m = this.m;
    const o = this.off[r];
    const len = this.len[r];
    const size = m.size;
    const endB = this.start[o + len + 1];
    let late = endB;
    let next = 0;
    for (let i = len; i >= 1; i--) {
      const c = this.nodes[o + i];
      late = latestStart(m, c, late - m.service[c] - m.time[c * size + next]);
      next = c;
    }
    const durB = endB - (late - m.time[next]);
    const depart = Math.max(m.vStart[r], this.lateArr[o]);
    let t = depart;
    let prev = 0;
    for (let i = 1; i <= len; i++) {
      const c = this.nodes[o + i];
      t = earliestStart(m, c, t + m.service[prev] + m.time[prev * size + c]);
      prev = c;
    }
    const durA = t + m.service[prev] + m.time[prev * size] - depart;
    return durA < durB ? durA : durB;
  }

  /** Routes with at least one stop. */
  used(): number {
    let used = 0;
    for (let r = 0; r < this.m.vehicles; r++) if (this.len[r] > 0) used++;
    return used;
  }

  /** Replaces every route with `routes` (per vehicle, its customers in order), the rest unassigned. */
  load(routes: readonly (readonly number[])[]): void {
    for (let r = 0; r < this.m.vehicles; r++) {
      const o = this.off[r];
      for (let i = 1; i <= this.len[r]; i++) {
        const c = this.nodes[o + i];
        this.routeOf[c] = -1;
        this.addUnassigned(c);
      }
      this.len[r] = 0;
      this.sum0[r] = this.sum1[r] = 0;
    }
    routes.forEach((stops, r) => {
      const o = this.off[r];
      stops.forEach((c, i) => {
        this.nodes[o + i + 1] = c;
        this.routeOf[c] = r;
        this.posOf[c] = i + 1;
        this.sum0[r] += this.m.load0[c];
        this.sum1[r] += this.m.load1[c];
        this.dropUnassigned(c);
      });
      this.len[r] = stops.length;
    });
    for (let r = 0; r < this.m.vehicles; r++) this.refresh(r);
  }

  /** Per vehicle, its customers in visiting order: the search's answer, kept apart from the search. */
  snapshot(): number[][] {
    const routes: number[][] = [];
    for (let r = 0; r < this.m.vehicles; r++) {
      const o = this.off[r];
      routes.push(Array.from(this.nodes.subarray(o + 1, o + 1 + this.len[r])));
    }
    return routes;
  }

  /**
   * Makes routes `routes[0 .. count)` and the unassigned list equal to `src`'s, the two solutions
   * differing in nothing else. Every route is released before any is copied: a customer may have
   * moved between two of them.
   */
  copyFrom(src: Solution, routes: Int32Array, count: number): void {
    for (let k = 0; k < count; k++) {
      const r = routes[k];
      const o = this.off[r];
      for (let i = 1; i <= this.len[r]; i++) this.routeOf[this.nodes[o + i]] = -1;
    }
    for (let k = 0; k < count; k++) this.copyRoute(src, routes[k]);
    this.copyUnassigned(src);
  }

  private copyRoute(src: Solution, r: number): void {
    const o = this.off[r];
    const n = src.len[r] + 2;
    this.meter.work += n;
    this.nodes.set(src.nodes.subarray(o, o + n), o);
    this.start.set(src.start.subarray(o, o + n), o);
    this.lateArr.set(src.lateArr.subarray(o, o + n), o);
    this.pre0.set(src.pre0.subarray(o, o + n), o);
    this.pre1.set(src.pre1.subarray(o, o + n), o);
    if (this.fwd && src.fwd && this.bwd && src.bwd) {
      this.fwd.copyRange(src.fwd, o, n);
      this.bwd.copyRange(src.bwd, o, n);
      this.window.set(src.window.subarray(o, o + n), o);
    }
    this.len[r] = src.len[r];
    this.sum0[r] = src.sum0[r];
    this.sum1[r] = src.sum1[r];
    this.cost[r] = src.cost[r];
    for (let i = 1; i < n - 1; i++) {
      const c = this.nodes[o + i];
      this.routeOf[c] = r;
      this.posOf[c] = i;
    }
  }

  private copyUnassigned(src: Solution): void {
    for (let i = 0; i < this.unCount; i++) this.unIndex[this.unassigned[i]] = -1;
    this.unCount = src.unCount;
    for (let i = 0; i < src.unCount; i++) {
      const c = src.unassigned[i];
      this.unassigned[i] = c;
      this.unIndex[c] = i;
    }
  }
}
