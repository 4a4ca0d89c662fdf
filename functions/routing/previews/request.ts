import type { CreatePreviewBody } from '../preview-schemas.ts';

/**
 * What a preview was asked for, resolved and checked when it was asked and stored in the
 * preview's item (`extra.request`), so the worker solves exactly that without checking again:
 * the registry's capacity and skills of each vehicle and the tenant's speed and zone as they were.
 * The orders themselves are read when the preview is solved (their locations, windows and loads
 * would make the item too large for 1,000 of them).
 */
export interface PreviewRequest {
  orderIds: string[];
  vehicles: Array<{
    vehicleId: string;
    shiftStart: string;
    shiftEnd: string;
    maxStops: number;
    capacity: { weightKg: number | null; volumeM3: number | null };
    skills: string[];
    /** The registry's label and plate then (decisions 17; absent on previews asked before). */
    label?: string;
    plate?: string;
  }>;
  /**
   * Assigned routes the preview changes (decisions 17), each with its vehicle and the version it
   * had: a plan from the preview applies over that version only. Absent on previews asked before.
   */
  routes?: Array<{ routeId: string; vehicleId: string; version: number }>;
  /** Seconds from the service date's midnight before which no route leaves (a preview of today), or null. */
  earliestStart?: number | null;
  depot: { latitude: number; longitude: number };
  objective: CreatePreviewBody['objective'];
  seed: number;
  timeLimitSeconds: number;
  speedKmh: number;
  timeZone: string;
}

/** decisions 15: 10 s, and one more per 20 orders, at most 60. */
export const defaultTimeLimitSeconds = (orderCount: number): number => Math.min(60, 10 + Math.floor(orderCount / 20));

export const requestOf = (item: Record<string, unknown>): PreviewRequest => item.request as PreviewRequest;
