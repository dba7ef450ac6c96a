/**
 * The S3 error table, on the shapes the AWS SDK v3 throws (recorded against OpenStack Swift's
 * s3api and AWS documentation): every category reachable, provider text never in the result.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { s3CustomerKeyRequired, s3FailureCategory, toStoreError } from './classify.ts';

const service = (name: string, status: number, message = `provider says: bucket acme-backups key fixtures/x ${name}`) =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });
const network = (code: string) => Object.assign(new Error(`connect ${code} 10.0.0.1:443`), { code });

describe('S3 failure categories', () => {
  const cases: [string, unknown, string][] = [
    ['unknown key on AWS', service('InvalidAccessKeyId', 403), 'authentication'],
    ['unknown key or wrong secret on Swift', service('SignatureDoesNotMatch', 403), 'authentication'],
    ['expired session', service('ExpiredToken', 400), 'authentication'],
    ['valid user without rights', service('AccessDenied', 403), 'authorization'],
    ['HEAD denied (no body)', service('Unknown', 403), 'authorization'],
    ['throttled', service('SlowDown', 503), 'throttled'],
    ['too many requests', service('Unknown', 429), 'throttled'],
    ['missing bucket', service('NoSuchBucket', 404), 'not_found'],
    ['wrong region', service('AuthorizationHeaderMalformed', 400), 'invalid_configuration'],
    ['bucket elsewhere', service('PermanentRedirect', 301), 'invalid_configuration'],
    ['invalid bucket name', service('InvalidBucketName', 400), 'invalid_configuration'],
    ['Swift garbage continuation token', service('InternalError', 500), 'unavailable'],
    ['service unavailable', service('ServiceUnavailable', 503), 'unavailable'],
    ['a 503 by status alone (no code: a HEAD, a proxy)', service('Unknown', 503), 'unavailable'],
    ['a 502 from a gateway', service('Unknown', 502), 'unavailable'],
    ['connection refused', network('ECONNREFUSED'), 'unavailable'],
    ['connection reset', network('ECONNRESET'), 'unavailable'],
    ['DNS failure', network('ENOTFOUND'), 'unavailable'],
    ['socket timeout', network('ETIMEDOUT'), 'timeout'],
    ['SDK timeout', Object.assign(new Error('t'), { name: 'TimeoutError' }), 'timeout'],
    ['abort', Object.assign(new Error('a'), { name: 'AbortError' }), 'canceled'],
    ['not S3 at all', Object.assign(new Error('Unexpected token <'), { name: 'SyntaxError' }), 'incompatible_format'],
    ['a 200 whose XML is cut short (the SDK cannot deserialize it)', Object.assign(new Error('XML parse error: missing closing tag </Key>.\n  Deserialization error: to see the raw response, inspect the hidden field {error}.$response on this object.'), { $metadata: { httpStatusCode: 200 }, $responseBodyText: '<ListBucketResult><Contents><Key>fixtures/x' }), 'incompatible_format'],
    ['a 200 that is not XML at all', Object.assign(new Error('XML parse error: unexpected content.'), { $metadata: { httpStatusCode: 200 } }), 'incompatible_format'],
    ['a listed name that is not url encoding', new URIError('URI malformed'), 'incompatible_format'],
    ['a wrapped network error', Object.assign(new Error('x'), { name: 'Error', cause: network('EPIPE') }), 'unavailable'],
    ['anything else', 'a string was thrown', 'unavailable'],
    ['null', null, 'unavailable'],
  ];
  for (const [what, error, category] of cases) it(`${what} → ${category}`, () => assert.equal(s3FailureCategory(error), category));

  it('a deliberate abort is canceled, a deadline is timeout, whatever the SDK threw', () => {
    const aborted = new AbortController();
    aborted.abort();
    assert.equal(s3FailureCategory(service('InternalError', 500), aborted.signal), 'canceled');
    const deadline = new AbortController();
    deadline.abort(new DOMException('deadline', 'TimeoutError'));
    assert.equal(s3FailureCategory(network('ECONNRESET'), deadline.signal), 'timeout');
  });

  it('the error keeps the provider text only as its cause', () => {
    const raw = service('AccessDenied', 403);
    const e = toStoreError(raw);
    assert.equal(e.category, 'authorization');
    assert.equal(e.message, 'the credentials may not read the destination');
    assert.ok(!e.message.includes('acme-backups'));
    assert.equal(e.cause, raw);
  });
});

describe('S3 SSE-C: an object read without its customer-provided key (D-92)', () => {
  const SSE_C = 'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.';

  it("AWS's exact answer to a GetObject is key-required, not a failure", () => {
    assert.equal(s3CustomerKeyRequired(service('InvalidRequest', 400, SSE_C)), true);
    // MinIO words it without the final stop.
    assert.equal(s3CustomerKeyRequired(service('InvalidRequest', 400, SSE_C.slice(0, -1))), true);
  });

  it('nothing else is: other InvalidRequest refusals, other codes or statuses, an aborted read', () => {
    assert.equal(s3CustomerKeyRequired(service('InvalidRequest', 400, 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.')), false);
    assert.equal(s3CustomerKeyRequired(service('InvalidRequest', 403, SSE_C)), false);
    assert.equal(s3CustomerKeyRequired(service('InvalidArgument', 400, SSE_C)), false);
    assert.equal(s3CustomerKeyRequired(service('AccessDenied', 403, SSE_C)), false);
    assert.equal(s3CustomerKeyRequired(service('Unknown', 400, '')), false);
    assert.equal(s3CustomerKeyRequired(null), false);
    const aborted = new AbortController();
    aborted.abort();
    assert.equal(s3CustomerKeyRequired(service('InvalidRequest', 400, SSE_C), aborted.signal), false);
  });

  it('as a failure (a listing is never asked) it stays what it was: invalid_configuration, without the provider text', () => {
    const e = toStoreError(service('InvalidRequest', 400, SSE_C));
    assert.equal(e.category, 'invalid_configuration');
    assert.ok(!/Server Side/.test(e.message));
  });
});
