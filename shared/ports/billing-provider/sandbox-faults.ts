import { ProviderRefusedError, ProviderUnavailableError } from './errors.ts';

export type SandboxOperation = 'exchangeCode' | 'list' | 'issueDocument' | 'createReturn' | 'createShipping' | 'getDocument' | 'findDocumentsBySalesId' | 'listShippings';

/**
 * Faults a test switches on: `error_before_apply` answers "unknown" (a 500) without doing
 * anything, `timeout_after_apply` does the work and then answers "unknown" (a timeout), `refuse`
 * answers a definitive 400, `slow` waits `delayMs` and then answers normally.
 */
export interface SandboxFault {
  operation: SandboxOperation;
  kind: 'error_before_apply' | 'timeout_after_apply' | 'refuse' | 'slow';
  delayMs?: number;
  /** How many calls it hits. @default every call until cleared */
  times?: number;
}

/** The sandbox's switched-on faults, in the order added. */
export class SandboxFaults {
  private list: SandboxFault[] = [];

  add(fault: SandboxFault): void {
    this.list.push({ ...fault });
  }

  clear(): void {
    this.list = [];
  }

  /** The fault for this call: waits, or throws, before anything is applied; answers the kind left for after. */
  async take(operation: SandboxOperation): Promise<SandboxFault['kind'] | undefined> {
    const index = this.list.findIndex((f) => f.operation === operation);
    if (index < 0) return undefined;
    const fault = this.list[index]!;
    if (fault.times !== undefined && --fault.times <= 0) this.list.splice(index, 1);
    if (fault.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 1000));
    if (fault.kind === 'error_before_apply') throw new ProviderUnavailableError('server_error', 500);
    if (fault.kind === 'refuse') throw new ProviderRefusedError(400, 'refused by a sandbox fault');
    return fault.kind;
  }
}
