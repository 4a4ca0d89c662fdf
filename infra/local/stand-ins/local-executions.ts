/**
 * An account's Lambda concurrent executions, as Lambda counts them: each running invocation of
 * any function holds one, and an invoke that finds none free is throttled. Invokers that share
 * one LocalExecutions share the account (a new one has 10). The local stack gives none unless
 * asked: locally nothing is throttled.
 */
export class LocalExecutions {
  private running = 0;
  private refused = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('an account runs at least one execution');
  }

  /** One execution until the returned release is called, or undefined: throttled. */
  take(): (() => void) | undefined {
    if (this.running >= this.limit) {
      this.refused++;
      return undefined;
    }
    this.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
    };
  }

  /** Every free execution, as other functions of the account would take them (an API burst); the release gives them back. */
  takeAll(): () => void {
    const held: Array<() => void> = [];
    while (this.running < this.limit) held.push(this.take()!);
    return () => held.forEach((release) => release());
  }

  /** Executions held now, and invokes refused so far. */
  stats(): { running: number; throttles: number } {
    return { running: this.running, throttles: this.refused };
  }
}
