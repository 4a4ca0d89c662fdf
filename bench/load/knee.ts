/** One step of the ladder: the mix at one concurrency, and its floor at the same concurrency. */
export interface StepResult {
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  /** Answers other than the expected ones and 429, plus socket errors and timeouts. */
  errors: number;
  limited: number;
  requests: number;
  floor?: { rps: number; p50: number; p99: number };
  loadAverage: number;
}

/** Where latency breaks, whatever the throughput: a person waiting a second for an answer. */
export const P99_LIMIT_MS = 1000;
/** Doubling the connections must add at least this much throughput, or the service is saturated. */
export const MIN_GAIN = 1.1;

export type Break = 'errors' | 'p99' | 'saturated';

/** Why a step is past the knee, given the step before it (undefined: it is not). */
export const breakOf = (step: StepResult, previous?: StepResult): Break | undefined => {
  if (step.errors > 0) return 'errors';
  if (step.p99 > P99_LIMIT_MS) return 'p99';
  if (previous && step.rps < previous.rps * MIN_GAIN) return 'saturated';
  return undefined;
};

/**
 * The knee: the last step of the ladder before the first step that breaks (non-429 errors, p99
 * over 1 s, or less than 10 % more throughput than the step before). Undefined when even the
 * first step breaks on errors or latency.
 */
export const kneeOf = (steps: StepResult[]): { knee?: StepResult; broke?: { step: StepResult; why: Break } } => {
  for (let i = 0; i < steps.length; i++) {
    const why = breakOf(steps[i], steps[i - 1]);
    if (why) return { knee: steps[i - 1], broke: { step: steps[i], why } };
  }
  return { knee: steps.at(-1) };
};
