import { describe, expect, it } from 'vitest';
import { AuditResourceMissingError, requestAuditWrites } from '../../../shared/audit/request-entry.ts';
import type { Outcome } from '../../../shared/http/operation.ts';
import type { ApiContext } from '../../../shared/http/types.ts';
import { newId } from '../../../shared/ids.ts';
import type { Write } from '../../../shared/table/transaction.ts';

const change: Write = { item: { Put: { TableName: 't', Item: { pk: 'a', sk: 'b' } } } };
const context = (access: 'member' | 'public' = 'member') =>
  ({
    requestId: 'req-1',
    receivedAt: new Date('2026-11-23T12:00:00.000Z'),
    tenantId: newId(),
    member: { id: newId() },
    operation: { operationId: 'createThing', access },
  }) as unknown as ApiContext;

describe('the audit entry of a request', () => {
  it('is one Put of the entry for an answer with writes, with the operation, member and request', () => {
    const ctx = context();
    const resourceId = newId();
    const [entry, ...rest] = requestAuditWrites(ctx, { status: 201, writes: [change], resourceId });
    expect(rest).toEqual([]);
    expect(entry.item.Put?.Item).toMatchObject({ action: 'createThing', resourceId, actorId: ctx.member!.id, requestId: 'req-1', tenantId: ctx.tenantId, outcome: 'succeeded', createdAt: '2026-11-23T12:00:00.000Z' });
    expect(entry.item.Put?.ConditionExpression).toBe('attribute_not_exists(pk)');
  });

  it('is none for an answer that changed nothing (no writes, or an empty list)', () => {
    expect(requestAuditWrites(context(), { status: 200, body: {} })).toEqual([]);
    expect(requestAuditWrites(context(), { status: 202, writes: [], resourceId: newId() })).toEqual([]);
  });

  it('refuses writes without a resource id, even where the types were bypassed', () => {
    const untyped = { status: 200, writes: [change] } as unknown as Outcome;
    expect(() => requestAuditWrites(context(), untyped)).toThrow(AuditResourceMissingError);
    const notAnId = { status: 200, writes: [change], resourceId: 'vehicle-7' } as Outcome;
    expect(() => requestAuditWrites(context(), notAnId)).toThrow(AuditResourceMissingError);
    expect(() => requestAuditWrites(context('public'), { status: 200, writes: [change], resourceId: newId() })).toThrow(AuditResourceMissingError);
  });

  it('cannot be forgotten at compile time: writes without resourceId do not type-check', () => {
    // @ts-expect-error an operation that returns writes must name the changed resource
    const forgotten: Outcome = { status: 200, writes: [change] };
    expect(forgotten.writes).toHaveLength(1);
  });
});
