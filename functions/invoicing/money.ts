/** The money and quantity rules moved to shared/money.ts (orders carry quantities too); kept here for invoicing's imports. */
export * from '../../shared/money.ts';
