export const questionKinds = ['week', 'month', 'fuel', 'where', 'outside', 'speed', 'today', 'stops', 'idle', 'care'] as const;
export type QuestionKind = (typeof questionKinds)[number];

export interface KnownVehicle {
  id: string;
  plate: string;
  label: string;
  active: boolean;
}

export interface ClassifyContext {
  vehicles: KnownVehicle[];
  /** IANA zone whose calendar decides what "hoy" means. */
  timeZone: string;
  now: Date;
}

export interface Classification {
  question: QuestionKind | null;
  vehicleId: string | null;
  /** YYYY-MM-DD in ctx.timeZone. */
  date: string | null;
}
