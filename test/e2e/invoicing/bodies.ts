/** An invoice's create body: 2 x 1495 + 1 x 23000 = 25990 CLP (no test runner imports: the bench uses it too). */
export const invoiceBody = (connectionId: string, customerId: string | null, over: Record<string, unknown> = {}) => ({
  connectionId,
  documentKind: 'invoice',
  customerId,
  currency: 'CLP',
  minorUnitScale: 0,
  totalMinor: '25990',
  lines: [
    { conceptKey: 'harina', description: 'Harina 1 kg', quantity: 2, unitPriceMinor: '1495' },
    { conceptKey: 'flete', description: 'Despacho', quantity: '1', unitPriceMinor: '23000' },
  ],
  ...over,
});
