// The floor bundle: the DynamoDB client and nothing else.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export const client = new DynamoDBClient({ region: 'us-east-1' });
