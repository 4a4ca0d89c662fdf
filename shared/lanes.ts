/**
 * Runs the tasks `lanes` at a time, in order. Every lane runs to its end before a failure is
 * reported, so nothing is left running behind the caller's answer; then the first failure is thrown.
 */
export const runInLanes = async (tasks: (() => Promise<void>)[], lanes = 8): Promise<void> => {
  const queue = [...tasks];
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await next();
  };
  const outcomes = await Promise.allSettled(Array.from({ length: lanes }, lane));
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
};
