/**
 * How long a test waits for something it expects to happen (a delivery, a projection, a worker's
 * result) before it fails. It only ends a test that is stuck: a passing wait returns as soon as
 * its condition holds, so the limit costs nothing then. On this 2-core machine a wait of 1-2 s
 * alone took 30-60 s at load 30-40 (issue 37), so every wait shares this one limit rather than a
 * figure chosen for a quiet machine. A wait that shows something does NOT happen is not one of
 * these: it waits for a later event that would come after it (docs/testing.md).
 */
export const WAIT_LIMIT_MS = 120_000;
