/**
 * What CloudFormation can do to the one DynamoDB table in a single stack update. A change outside
 * it fails the deploy halfway (more than one index created or deleted, an index redefined) or
 * replaces the table (its key schema, a local index), which for this table means a new, empty one.
 */
type KeySchema = { AttributeName: string; KeyType: string }[];
export interface TableShape {
  KeySchema: KeySchema;
  GlobalSecondaryIndexes?: { IndexName: string; KeySchema: KeySchema; Projection: unknown }[];
  LocalSecondaryIndexes?: { IndexName: string; KeySchema: KeySchema; Projection: unknown }[];
  StreamSpecification?: { StreamViewType: string };
}

/** The parts of the template's table that decide whether an update can apply. */
export const shapeOf = (properties: Record<string, any>): TableShape => ({
  KeySchema: properties.KeySchema,
  GlobalSecondaryIndexes: (properties.GlobalSecondaryIndexes ?? []).map((i: any) => ({ IndexName: i.IndexName, KeySchema: i.KeySchema, Projection: i.Projection })),
  LocalSecondaryIndexes: (properties.LocalSecondaryIndexes ?? []).map((i: any) => ({ IndexName: i.IndexName, KeySchema: i.KeySchema, Projection: i.Projection })),
  StreamSpecification: properties.StreamSpecification,
});

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Why CloudFormation could not take the table from `deployed` to `next` in one update (none: it can). */
export const unapplicableChanges = (deployed: TableShape, next: TableShape): string[] => {
  const problems: string[] = [];
  if (!same(deployed.KeySchema, next.KeySchema)) problems.push('the key schema changed: CloudFormation would replace the table (a new, empty one)');
  if (!same(deployed.LocalSecondaryIndexes ?? [], next.LocalSecondaryIndexes ?? [])) problems.push('a local secondary index changed: only possible by replacing the table');
  const before = new Map((deployed.GlobalSecondaryIndexes ?? []).map((i) => [i.IndexName, i]));
  const after = new Map((next.GlobalSecondaryIndexes ?? []).map((i) => [i.IndexName, i]));
  const added = [...after.keys()].filter((name) => !before.has(name));
  const removed = [...before.keys()].filter((name) => !after.has(name));
  const redefined = [...after.keys()].filter((name) => before.has(name) && !same(before.get(name), after.get(name)));
  for (const name of redefined) problems.push(`global index ${name} redefined: delete it in one deploy and create it again (under a new name) in another`);
  if (added.length + removed.length > 1) {
    problems.push(`${added.length} global indexes added and ${removed.length} removed: CloudFormation creates or deletes one per update, so deploy them one at a time`);
  }
  const stream = [deployed.StreamSpecification?.StreamViewType, next.StreamSpecification?.StreamViewType];
  if (stream[0] && stream[1] && stream[0] !== stream[1]) problems.push('the stream view type changed: DynamoDB needs the stream disabled in one deploy and enabled again in the next');
  return problems;
};
