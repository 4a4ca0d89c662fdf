import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '../auth/roles.ts';
import { nowIso } from '../clock.ts';
import { newId } from '../ids.ts';
import { keys } from '../table/keys.ts';
import { table, tableName } from '../table/client.ts';

export interface Member {
  id: string;
  tenantId: string;
  subject: string;
  role: Role;
  firstName: string;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

const toMember = (item: Record<string, unknown>): Member => ({
  id: item.memberId as string,
  tenantId: item.tenantId as string,
  subject: item.subject as string,
  role: item.role as Role,
  firstName: item.firstName as string,
  active: item.active as boolean,
  createdAt: item.createdAt as string,
  updatedAt: item.updatedAt as string,
});

/** Strongly consistent: a member removed a moment ago must be refused at once. */
export const getMember = async (tenantId: string, subject: string): Promise<Member | undefined> => {
  const { Item } = await table().send(
    new GetCommand({ TableName: tableName(), Key: keys.member(tenantId, subject), ConsistentRead: true }),
  );
  return Item ? toMember(Item) : undefined;
};

export const getMemberById = async (tenantId: string, memberId: string): Promise<Member | undefined> => {
  const { Items = [] } = await table().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.memberById(memberId).gsi1pk },
    }),
  );
  const item = Items.find((i) => i.tenantId === tenantId);
  return item ? toMember(item) : undefined;
};

export interface AddMemberInput {
  tenantId: string;
  subject: string;
  role: Role;
  firstName: string;
  id?: string;
}

/** Adds or re-activates a member; the id stays the same when the subject was a member before. */
export const putMember = async (input: AddMemberInput): Promise<Member> => {
  const existing = await getMember(input.tenantId, input.subject);
  const now = nowIso();
  const member: Member = {
    id: input.id ?? existing?.id ?? newId(),
    tenantId: input.tenantId,
    subject: input.subject,
    role: input.role,
    firstName: input.firstName,
    active: true,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  await table().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.member(member.tenantId, member.subject),
        ...keys.memberById(member.id),
        entity: 'member',
        memberId: member.id,
        tenantId: member.tenantId,
        subject: member.subject,
        role: member.role,
        firstName: member.firstName,
        active: true,
        createdAt: member.createdAt,
        updatedAt: member.updatedAt,
      },
    }),
  );
  return member;
};

/** Returns false when the subject was never a member of the tenant. */
export const deactivateMember = async (tenantId: string, subject: string): Promise<boolean> => {
  try {
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.member(tenantId, subject),
        UpdateExpression: 'SET active = :false, updatedAt = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':false': false, ':now': nowIso() },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
};
