/** The Azure error table on the shapes the SDK throws (RestError codes and statuses, network codes). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { azureFailureCategory, toAzureStoreError } from './classify.ts';

const rest = (code: string | undefined, statusCode: number) => Object.assign(new Error(`Server failed: account acme container backups ${code ?? ''}`), { name: 'RestError', code, statusCode });

describe('Azure failure categories', () => {
  const cases: [string, unknown, string][] = [
    ['bad signature or key (Azure)', rest('AuthenticationFailed', 403), 'authentication'],
    ['no credentials', rest('NoAuthenticationInformation', 401), 'authentication'],
    ['RBAC without data access', rest('AuthorizationPermissionMismatch', 403), 'authorization'],
    ['firewall or Azurite bad key', rest('AuthorizationFailure', 403), 'authorization'],
    ['missing container', rest('ContainerNotFound', 404), 'not_found'],
    ['server busy', rest('ServerBusy', 503), 'throttled'],
    ['operation timed out', rest('OperationTimedOut', 500), 'timeout'],
    ['internal error', rest('InternalError', 500), 'unavailable'],
    ['HEAD 403 without a code', rest(undefined, 403), 'authorization'],
    ['connection refused', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'unavailable'],
    ['abort', Object.assign(new Error('x'), { name: 'AbortError' }), 'canceled'],
  ];
  for (const [what, error, category] of cases) it(`${what} → ${category}`, () => assert.equal(azureFailureCategory(error), category));

  it('keeps the service text only as the cause', () => {
    const e = toAzureStoreError(rest('AuthenticationFailed', 403));
    assert.ok(!e.message.includes('acme'));
  });
});
