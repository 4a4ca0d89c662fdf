import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tableName, table } from '../../shared/table/client.ts';
import { keys } from '../../shared/table/keys.ts';
import type { Write } from '../../shared/table/transaction.ts';
import { TransactionConflictError } from '../../shared/table/transaction.ts';
import { fromMicro, toMicro } from './money.ts';

/**
 * What the live (not cancelled, not rejected) credit notes of one invoice credit, per credited
 * position, in one item with a version: every credit note create, cancel and rejection rewrites
 * it conditionally, so two credit notes made at once cannot both take the last of a line.
 */
export interface CreditLedger {
  tenantId: string;
  invoiceId: string;
  /** position → credited quantity (decimal text). */
  credited: Record<string, string>;
  /** 0 while no credit note exists. */
  version: number;
}

export const readLedger = async (tenantId: string, invoiceId: string): Promise<CreditLedger> => {
  const { Item } = await table().send(new GetCommand({ TableName: tableName(), Key: keys.invoiceCredits(tenantId, invoiceId), ConsistentRead: true }));
  return { tenantId, invoiceId, credited: (Item?.credited as Record<string, string>) ?? {}, version: (Item?.version as number) ?? 0 };
};

export const creditedMicro = (ledger: CreditLedger, position: number): bigint => toMicro(ledger.credited[String(position)] ?? '0');

/** The ledger with `sign` x each line's quantity added to its credited position. */
export const adjustLedger = (ledger: CreditLedger, lines: Array<{ creditedPosition: number | null; quantity: string }>, sign: 1n | -1n): CreditLedger => {
  const credited = { ...ledger.credited };
  for (const line of lines) {
    if (line.creditedPosition === null) continue;
    const key = String(line.creditedPosition);
    const next = toMicro(credited[key] ?? '0') + sign * toMicro(line.quantity);
    credited[key] = fromMicro(next < 0n ? 0n : next);
  }
  return { ...ledger, credited, version: ledger.version + 1 };
};

/** Writes the ledger if nobody changed it since it was read at `ledger.version - 1`. */
export const saveLedger = (ledger: CreditLedger): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: { ...keys.invoiceCredits(ledger.tenantId, ledger.invoiceId), entity: 'invoiceCredits', ...ledger },
      ConditionExpression: ledger.version === 1 ? 'attribute_not_exists(pk)' : 'version = :expected',
      ...(ledger.version === 1 ? {} : { ExpressionAttributeValues: { ':expected': ledger.version - 1 } }),
    },
  },
  // Another credit note of the same invoice committed first: the caller retries with a fresh read.
  onConditionFailed: () => new TransactionConflictError([]),
});
