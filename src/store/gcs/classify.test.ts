/** The Cloud Storage error table on the shapes the SDK throws (ApiError codes and reasons, network codes). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gcsCustomerKeyRequired, gcsFailureCategory, toGcsStoreError } from './classify.ts';

const api = (code: number, reason?: string) => Object.assign(new Error(`bucket acme-backups: ${reason ?? ''}`), { name: 'ApiError', code, errors: reason === undefined ? [] : [{ reason }] });

describe('GCS failure categories', () => {
  const cases: [string, unknown, string][] = [
    ['invalid credentials', api(401, 'authError'), 'authentication'],
    ['no credentials', api(401, 'required'), 'authentication'],
    ['no permission', api(403, 'forbidden'), 'authorization'],
    ['missing bucket', api(404, 'notFound'), 'not_found'],
    ['rate limited', api(429, 'rateLimitExceeded'), 'throttled'],
    ['backend error', api(503, 'backendError'), 'unavailable'],
    ['user rate limited', api(429, 'userRateLimitExceeded'), 'throttled'],
    ['status only 429', api(429), 'throttled'],
    ['status only 503', api(503), 'unavailable'],
    ['status only 403', api(403), 'authorization'],
    ['status only 500', api(500), 'unavailable'],
    ['connection refused', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'unavailable'],
    ['abort', Object.assign(new Error('x'), { name: 'AbortError' }), 'canceled'],
    ['a 200 that is not JSON (HTML, a body cut short)', new SyntaxError('Unexpected token \'<\', "<html><bod"... is not valid JSON'), 'incompatible_format'],
  ];
  for (const [what, error, category] of cases) it(`${what} → ${category}`, () => assert.equal(gcsFailureCategory(error), category));

  it('keeps the service text only as the cause', () => {
    assert.ok(!toGcsStoreError(api(403, 'forbidden')).message.includes('acme'));
  });
});

describe('Cloud Storage CSEK: an object read without its customer-supplied key (D-92)', () => {
  const REASON = 'resourceIsEncryptedWithCustomerEncryptionKey';
  const body = (reason: string) => JSON.stringify({ error: { code: 400, message: 'The target object is encrypted by a customer-supplied encryption key.', errors: [{ domain: 'global', reason, message: 'x' }] } });

  it('400 with that reason is key-required: parsed into errors[] (metadata) or left in the message (a media download)', () => {
    assert.equal(gcsCustomerKeyRequired(api(400, REASON)), true);
    assert.equal(gcsCustomerKeyRequired(Object.assign(new Error(body(REASON)), { name: 'ApiError', code: 400, errors: [] })), true);
  });

  it('nothing else is: another 400 reason, the reason on another status, text that is no error body, an aborted read', () => {
    assert.equal(gcsCustomerKeyRequired(api(400, 'invalid')), false);
    assert.equal(gcsCustomerKeyRequired(api(400, 'resourceNotEncryptedWithCustomerEncryptionKey')), false);
    assert.equal(gcsCustomerKeyRequired(Object.assign(new Error(body('customerEncryptionKeyIsIncorrect')), { code: 400, errors: [] })), false);
    assert.equal(gcsCustomerKeyRequired(api(403, REASON)), false);
    assert.equal(gcsCustomerKeyRequired(Object.assign(new Error(`Bad Request ${REASON}`), { code: 400, errors: [] })), false);
    assert.equal(gcsCustomerKeyRequired(Object.assign(new Error('{not json'), { code: 400 })), false);
    const aborted = new AbortController();
    aborted.abort();
    assert.equal(gcsCustomerKeyRequired(api(400, REASON), aborted.signal), false);
  });

  it('as a failure (a listing is never asked) it stays what it was, without the provider text', () => {
    const e = toGcsStoreError(api(400, REASON));
    assert.equal(e.category, 'invalid_configuration');
    assert.ok(!e.message.includes('acme'));
  });
});
