/**
 * `node bench/sdk-import.ts`: what loading the SDK's S3 stack costs a process before its first
 * request (issue 28, bench/list-cpu.ts's `sdk_import` case): the client, the credential chain and
 * the HTTP handler viewer's S3 driver loads, nothing of viewer's. Run with Node's compile cache on,
 * as the executable runs. Prints `{"keys":0}`.
 */
const loaded = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/credential-provider-node'), import('@smithy/node-http-handler')]);
process.stdout.write(`${JSON.stringify({ keys: 0, modules: loaded.length })}\n`);
