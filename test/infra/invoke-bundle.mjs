// Run by bundles.test.ts in a process of its own, as Lambda runs a function: the bundle is imported
// with the environment its template gives it (set by the parent), then its handler is called once
// with the event read from argv. Prints the answer as JSON. Plain JavaScript, so no loader of the
// test toolchain stands between the bundle and Node. The answer goes on a marked last line: the
// function's own log lines share stdout.
import { pathToFileURL } from 'node:url';

const [bundle, eventJson] = process.argv.slice(2);
const module = await import(pathToFileURL(bundle).href);
if (typeof module.handler !== 'function') throw new Error(`${bundle} exports no handler`);
if (!eventJson) {
  process.stdout.write(`\n@@answer ${JSON.stringify({ imported: true })}\n`);
} else {
  const context = {
    awsRequestId: 'bundle-check-1',
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    getRemainingTimeInMillis: () => 10_000,
    callbackWaitsForEmptyEventLoop: true,
  };
  const answer = await module.handler(JSON.parse(eventJson), context);
  process.stdout.write(`\n@@answer ${JSON.stringify(answer)}\n`);
}
