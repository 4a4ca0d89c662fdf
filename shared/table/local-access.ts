/**
 * How every client of DynamoDB Local reaches it (the handlers' table client, the stream reader,
 * the table's creation): a region, an access key, and a signer that signs nothing.
 *
 * Started without `-sharedDb`, DynamoDB Local keeps one database per access key and region, and
 * the test run gives each test file a key of its own (test/support/file-database-setup.ts): a
 * write there costs the same in a file's first table as in its tenth, where in one shared database
 * each write read past every earlier file's stream records (docs/testing.md). `npm start` shares
 * one database, so the key changes nothing there.
 *
 * DynamoDB Local reads the key and region from the Authorization header and checks no signature:
 * SigV4 signing was a third of the client's CPU on a GetItem (0.34 of 1.0 ms), so the header is
 * written as it is, never computed.
 */
export const localDynamoAccess = () => {
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const accessKeyId = process.env.DYNAMODB_LOCAL_ACCESS_KEY_ID || 'local';
  const authorization = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/19700101/${region}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`;
  return {
    region,
    credentials: { accessKeyId, secretAccessKey: 'local' },
    signer: {
      sign: async <R extends { headers: Record<string, string> }>(request: R): Promise<R> => {
        request.headers.authorization = authorization;
        return request;
      },
    },
  };
};
