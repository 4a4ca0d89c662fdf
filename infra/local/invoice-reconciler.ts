import type { ReconcilerRun } from '../../functions/invoicing/reconciler/run.ts';
import { invoiceReconciler } from '../../functions/jobs.ts';
import { invokedAs } from '../../shared/aws-calls/identity.ts';

export interface LocalInvoiceReconciler {
  /** Runs the reconciler once now (it also runs every INVOICE_RECONCILE_SECONDS, default 60). */
  run(): Promise<ReconcilerRun>;
  stop(): void;
}

/** The cloud's one-minute EventBridge rule for the invoice reconciler, as a timer. */
export const startLocalInvoiceReconciler = async (): Promise<LocalInvoiceReconciler> => {
  const handler = invokedAs(invoiceReconciler.name, (await import('../../functions/invoicing/reconciler/handler.ts')).handler);
  const everySeconds = Number(process.env.INVOICE_RECONCILE_SECONDS ?? 60);
  const timer = setInterval(() => {
    handler(undefined).catch((error: Error) => console.error('invoice reconciler failed:', error.message));
  }, everySeconds * 1000);
  timer.unref();
  return { run: () => handler(undefined), stop: () => clearInterval(timer) };
};
