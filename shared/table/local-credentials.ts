/**
 * The credentials every client of DynamoDB Local uses (the handlers' table client, the stream
 * reader, the table's creation). DynamoDB Local accepts any; fixed ones keep the SDK from
 * searching for them.
 *
 * Started without `-sharedDb`, DynamoDB Local keeps one database per access key, and the test run
 * gives each test file a key of its own (test/support/file-database-setup.ts): a write there costs
 * the same in a file's first table as in its tenth, where in one shared database each write read
 * past every earlier file's stream records (docs/testing.md). `npm start` shares one database, so
 * the key changes nothing there.
 */
export const localCredentials = (): { accessKeyId: string; secretAccessKey: string } => ({
  accessKeyId: process.env.DYNAMODB_LOCAL_ACCESS_KEY_ID || 'local',
  secretAccessKey: 'local',
});
