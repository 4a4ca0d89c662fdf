import type { Submission } from '../intent-record.ts';

/** The default answer window (decisions 19): Bsale documents no processing time (docs/guides-exactly-once.md). */
export const DEFAULT_ANSWER_WINDOW_SECONDS = 600;

/**
 * How long after a send ended the provider may still apply it: `GUIDE_ANSWER_WINDOW_SECONDS`
 * (default 600), read at every use so the local stack and the cloud honour the same setting. A
 * value that is not a non-negative integer fails the look-up rather than shortening the window.
 */
export const answerWindowMs = (): number => {
  const raw = process.env.GUIDE_ANSWER_WINDOW_SECONDS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_ANSWER_WINDOW_SECONDS * 1000;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 0) throw new Error('GUIDE_ANSWER_WINDOW_SECONDS must be a non-negative integer');
  return seconds * 1000;
};

/**
 * When the latest send's answer window ends: counted from the end of that send, its answer or
 * its deadline (`sendEndedAt`); a send whose end was never recorded (the issuer died before its
 * second commit) ended at the latest at its deadline.
 */
export const answerWindowEndsAt = (submission: Submission, sendDeadlineMs: number): number => {
  const ended = submission.sendEndedAt ? Date.parse(submission.sendEndedAt) : Date.parse(submission.submittedAt) + sendDeadlineMs;
  return ended + answerWindowMs();
};
