/** The Cloud Storage error table on the shapes the SDK throws (ApiError codes and reasons, network codes). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gcsFailureCategory, toGcsStoreError } from './classify.ts';

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
