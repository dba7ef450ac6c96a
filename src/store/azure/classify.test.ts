/** The Azure error table on the shapes the SDK throws (RestError codes and statuses, network codes, ambient-chain errors). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AggregateAuthenticationError, AuthenticationError, AuthenticationRequiredError, CredentialUnavailableError } from '@azure/identity';
import { azureCustomerKeyRequired, azureFailureCategory, toAzureStoreError } from './classify.ts';

const rest = (code: string | undefined, statusCode: number) => Object.assign(new Error(`Server failed: account acme container backups ${code ?? ''}`), { name: 'RestError', code, statusCode });

describe('Azure failure categories', () => {
  const cases: [string, unknown, string][] = [
    ['bad signature or key (Azure)', rest('AuthenticationFailed', 403), 'authentication'],
    ['no credentials', rest('NoAuthenticationInformation', 401), 'authentication'],
    ['RBAC without data access', rest('AuthorizationPermissionMismatch', 403), 'authorization'],
    ['firewall or Azurite bad key', rest('AuthorizationFailure', 403), 'authorization'],
    ['missing container', rest('ContainerNotFound', 404), 'not_found'],
    ['server busy (Azure throttling a partition or account)', rest('ServerBusy', 503), 'throttled'],
    ['too many requests without a code', rest(undefined, 429), 'throttled'],
    ['a 503 without ServerBusy (a gateway, an outage)', rest(undefined, 503), 'unavailable'],
    ['a 503 with another code', rest('ServiceUnavailable', 503), 'unavailable'],
    ['operation timed out', rest('OperationTimedOut', 500), 'timeout'],
    ['a 200 whose XML is cut short or not XML (the SDK cannot parse it)', rest('PARSE_ERROR', 200), 'incompatible_format'],
    ['internal error', rest('InternalError', 500), 'unavailable'],
    ['HEAD 403 without a code', rest(undefined, 403), 'authorization'],
    ['connection refused', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'unavailable'],
    ['abort', Object.assign(new Error('x'), { name: 'AbortError' }), 'canceled'],
    ['an encoded blob name that does not decode', new URIError('URI malformed'), 'incompatible_format'],
  ];
  for (const [what, error, category] of cases) it(`${what} → ${category}`, () => assert.equal(azureFailureCategory(error), category));

  describe('the ambient credential chain (@azure/identity)', () => {
    const unavailable = new CredentialUnavailableError('Azure CLI could not be found. Please visit https://aka.ms/azure-cli for installation instructions');
    const refused = new AuthenticationError(401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret for app 0f1e2d3c' });
    const chained: [string, unknown][] = [
      ['no credential in the chain is usable', unavailable],
      ['the identity service refused the credential', refused],
      ['every credential of the chain was unavailable', new AggregateAuthenticationError([unavailable, unavailable], 'ChainedTokenCredential authentication failed.')],
      ['interactive authentication would be needed', new AuthenticationRequiredError({ scopes: ['https://storage.azure.com/.default'], message: 'Cannot silently authenticate' })],
    ];
    for (const [what, error] of chained) {
      it(`${what} → authentication, with none of the SDK's text`, () => {
        assert.equal(azureFailureCategory(error), 'authentication');
        const e = toAzureStoreError(error);
        assert.equal(e.category, 'authentication');
        assert.ok(!/Azure CLI|aka\.ms|AADSTS|0f1e2d3c|Chained|storage\.azure\.com|silently/.test(e.message), e.message);
        assert.equal(e.cause, error);
      });
    }

    it('an abort during token acquisition is still canceled', () => {
      const controller = new AbortController();
      controller.abort();
      assert.equal(azureFailureCategory(unavailable, controller.signal), 'canceled');
    });
  });

  it('keeps the service text only as the cause', () => {
    const e = toAzureStoreError(rest('AuthenticationFailed', 403));
    assert.ok(!e.message.includes('acme'));
  });
});

describe('Azure CPK: a blob read without its customer-provided key (D-92)', () => {
  it('409 BlobUsesCustomerSpecifiedEncryption (Get Blob Properties or Get Blob) is key-required', () => {
    assert.equal(azureCustomerKeyRequired(rest('BlobUsesCustomerSpecifiedEncryption', 409)), true);
    // A HEAD has no body: the SDK leaves `code` unset and keeps the x-ms-error-code header in `details`.
    assert.equal(azureCustomerKeyRequired(Object.assign(rest(undefined, 409), { details: { errorCode: 'BlobUsesCustomerSpecifiedEncryption' } })), true);
    assert.equal(azureCustomerKeyRequired(Object.assign(rest(undefined, 409), { details: { errorCode: 'LeaseIdMissing' } })), false);
  });

  it('nothing else is: another 409, the code on another status, an aborted read', () => {
    assert.equal(azureCustomerKeyRequired(rest('BlobDoesNotUseCustomerSpecifiedEncryption', 409)), false);
    assert.equal(azureCustomerKeyRequired(rest(undefined, 409)), false);
    assert.equal(azureCustomerKeyRequired(rest('BlobUsesCustomerSpecifiedEncryption', 400)), false);
    const aborted = new AbortController();
    aborted.abort();
    assert.equal(azureCustomerKeyRequired(rest('BlobUsesCustomerSpecifiedEncryption', 409), aborted.signal), false);
  });

  it('as a failure (a listing is never asked) it stays what it was, without the provider text', () => {
    const e = toAzureStoreError(rest('BlobUsesCustomerSpecifiedEncryption', 409));
    assert.equal(e.category, 'unavailable');
    assert.ok(!e.message.includes('acme'));
  });
});
