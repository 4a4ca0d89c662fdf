import { UnprocessableError, type FieldIssue } from '../../shared/errors.ts';

/** An order whose goods do not fit its connection's records (decisions 14); `errors` names each field. */
export class InvalidOrderError extends UnprocessableError {
  constructor(message: string, issues: FieldIssue[]) {
    super(message, 'invalid_order', issues);
  }
}
