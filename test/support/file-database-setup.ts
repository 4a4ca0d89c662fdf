import { randomUUID } from 'node:crypto';

// A setup file: runs before each test file in its worker, before env-restore-setup.ts takes its
// copy of the environment. Each file reaches DynamoDB Local with an access key of its own, so the
// run's DynamoDB Locals (started without -sharedDb) keep its tables in a database of its own:
// in one shared database every write read past the stream records of every file before it
// (shared/table/local-access.ts). Child processes a file starts inherit the key.
// DynamoDB Local takes letters and digits only in a key.
process.env.DYNAMODB_LOCAL_ACCESS_KEY_ID = `file${randomUUID().replaceAll('-', '')}`;
