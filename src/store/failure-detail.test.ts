/**
 * Failure details (issue 26): what each driver's classify module says beside the category, and
 * what it never says (provider text, keys, secrets). The category of a local failure is its real
 * one (`invalid_configuration` for a CA this process does not trust, a missing home, no region).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { describeFailure, failureDetail, formatDetail, publicDetail } from '../common/errors.ts';
import { azureFailureCategory, toAzureStoreError } from './azure/classify.ts';
import { checkCredentialFile, readCredentialFile } from './credential-file.ts';
import { gcsFailureCategory, toGcsStoreError } from './gcs/classify.ts';
import { hostPort, localFailure } from './network-errors.ts';
import { s3FailureCategory, toStoreError } from './s3/classify.ts';
import { trustCaFile } from './trust.ts';

const TEXT = 'CanaryProviderText7f3a s3://acme-backups/pg/pg-main/wals/0000000100000000/000000010000000000000001 X-Amz-Signature=abc';
const leaks = (value: unknown) => JSON.stringify(value).includes('Canary') || JSON.stringify(value).includes('acme') || JSON.stringify(value).includes('X-Amz-Signature');

function tlsError(code: string): Error {
  return Object.assign(new Error(`${TEXT} certificate`), { code });
}

describe('failure details', () => {
  it('S3: the error code, the HTTP status and the endpoint, never the message', () => {
    const e = toStoreError(Object.assign(new Error(TEXT), { name: 'SignatureDoesNotMatch', $metadata: { httpStatusCode: 403 } }), undefined, '127.0.0.1:18080');
    assert.equal(e.category, 'authentication');
    assert.deepEqual(e.detail, { errorName: 'SignatureDoesNotMatch', httpStatus: 403, endpoint: '127.0.0.1:18080', localCause: null });
    assert.equal(formatDetail(e.detail), 'SignatureDoesNotMatch, HTTP 403, from 127.0.0.1:18080');
    assert.equal(describeFailure(e.category, publicDetail(e.detail)), 'authentication (SignatureDoesNotMatch, HTTP 403)');
    assert.ok(!leaks(e.detail));
  });

  it('a name that is no plain code, or a status out of range, is dropped', () => {
    const e = toStoreError(Object.assign(new Error(TEXT), { name: 'Weird Code <script>', $metadata: { httpStatusCode: 999 } }), undefined, null);
    assert.deepEqual(e.detail, { errorName: null, httpStatus: null, endpoint: null, localCause: null });
    assert.deepEqual(failureDetail({ errorName: 'a'.repeat(65), endpoint: 'http://x/y', httpStatus: 403.5 }), { errorName: null, httpStatus: null, endpoint: null, localCause: null });
  });

  it('TLS verification failures are local configuration, named with their code, for every provider', () => {
    for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']) {
      const wrapped = Object.assign(new Error('request failed'), { cause: tlsError(code) });
      assert.equal(s3FailureCategory(wrapped), 'invalid_configuration', code);
      assert.equal(azureFailureCategory(Object.assign(tlsError(code), { name: 'RestError' })), 'invalid_configuration', code);
      assert.equal(gcsFailureCategory(Object.assign(tlsError(code), { name: 'FetchError' })), 'invalid_configuration', code);
      const e = toGcsStoreError(tlsError(code), undefined, 'storage.example:8443');
      assert.match(e.detail?.localCause ?? '', /^TLS verification failed: self-signed or unknown CA \(add the CA with STORE_CA_FILE or NODE_EXTRA_CA_CERTS\)$/);
      assert.equal(e.detail?.errorName, code);
      assert.ok(!leaks(e.detail));
    }
    assert.equal(localFailure(tlsError('CERT_HAS_EXPIRED'))?.category, 'unavailable');
    assert.equal(localFailure(tlsError('ECONNREFUSED')), null);
  });

  it('a missing home directory and a missing region are local configuration', () => {
    const home = Object.assign(new Error('uv_os_homedir returned ENOENT'), { code: 'ERR_SYSTEM_ERROR', info: { syscall: 'uv_os_homedir' } });
    const e = toStoreError(home, undefined, '127.0.0.1:9000');
    assert.equal(e.category, 'invalid_configuration');
    assert.match(e.detail?.localCause ?? '', /^no home directory: HOME is unset or empty/);
    const r = toStoreError(new Error('Region is missing'));
    assert.equal(r.category, 'invalid_configuration');
    assert.equal(r.detail?.localCause, 'no region: set STORE_REGION (or AWS_REGION for the ambient chain)');
    // Any other plain Error stays what it was.
    assert.equal(s3FailureCategory(new Error('something else')), 'unavailable');
  });

  it('Azure: the service error code and status; the credential chain by its name', () => {
    const e = toAzureStoreError(Object.assign(new Error(TEXT), { name: 'RestError', code: 'AuthorizationFailure', statusCode: 403 }), undefined, 'acme.blob.core.windows.net:443');
    assert.deepEqual(e.detail, { errorName: 'AuthorizationFailure', httpStatus: 403, endpoint: 'acme.blob.core.windows.net:443', localCause: null });
    const c = toAzureStoreError(Object.assign(new Error(TEXT), { name: 'CredentialUnavailableError' }), undefined, null);
    assert.equal(c.category, 'authentication');
    assert.match(c.detail?.localCause ?? '', /^the ambient chain found no usable Azure credential: set STORE_CONNECTION_STRING_FILE/);
  });

  it('Cloud Storage: the reason and status; an anonymous request names the missing credential', () => {
    const e = toGcsStoreError(Object.assign(new Error(TEXT), { code: 401, errors: [{ reason: 'required', message: TEXT }] }), undefined, 'storage.googleapis.com:443');
    assert.equal(e.category, 'authentication');
    assert.equal(e.detail?.errorName, 'required');
    assert.equal(e.detail?.httpStatus, 401);
    assert.match(e.detail?.localCause ?? '', /set STORE_SERVICE_ACCOUNT_KEY_FILE, or GOOGLE_APPLICATION_CREDENTIALS/);
    assert.ok(!leaks(e.detail));
  });

  it('an aborted call has no detail', () => {
    const ac = new AbortController();
    ac.abort();
    assert.equal(toStoreError(new Error('x'), ac.signal, '127.0.0.1:1').detail, null);
  });

  it('credential files are named by their variable and the system code, never the path or contents', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'viewer-detail-'));
    try {
      const missing = join(dir, 'acme-secret-path');
      await assert.rejects(readCredentialFile(missing, /^\S+$/, 'STORE_ACCESS_KEY_ID_FILE'), (e: { category: string; detail: { localCause: string } }) => {
        assert.equal(e.category, 'invalid_configuration');
        assert.equal(e.detail.localCause, 'STORE_ACCESS_KEY_ID_FILE could not be read (ENOENT)');
        return true;
      });
      await assert.rejects(checkCredentialFile(missing, 'STORE_SERVICE_ACCOUNT_KEY_FILE'), /could not be read/);
      writeFileSync(join(dir, 'bad'), 'acme secret with spaces');
      await assert.rejects(readCredentialFile(join(dir, 'bad'), /^\S+$/, 'STORE_SECRET_ACCESS_KEY_FILE'), (e: { detail: { localCause: string } }) => {
        assert.equal(e.detail.localCause, 'STORE_SECRET_ACCESS_KEY_FILE names a file that is empty or malformed');
        return !leaks(e.detail);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('STORE_CA_FILE: unreadable or certificate-less files are refused by variable and code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'viewer-ca-'));
    try {
      await assert.rejects(trustCaFile(join(dir, 'none.pem')), (e: { detail: { localCause: string } }) => e.detail.localCause === 'STORE_CA_FILE could not be read (ENOENT)');
      writeFileSync(join(dir, 'empty.pem'), 'acme not a certificate\n');
      await assert.rejects(trustCaFile(join(dir, 'empty.pem')), (e: { detail: { localCause: string } }) => /^STORE_CA_FILE holds no PEM certificate/.test(e.detail.localCause));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('host:port of an endpoint, with the scheme\'s port', () => {
    assert.equal(hostPort('http://127.0.0.1:18080'), '127.0.0.1:18080');
    assert.equal(hostPort('https://minio.internal'), 'minio.internal:443');
    assert.equal(hostPort('http://[::1]:9000'), '[::1]:9000');
    assert.equal(hostPort(null), null);
  });
});
