/**
 * What each provider answers a read of an object encrypted with a customer-provided key when the
 * request carries none (D-92), as fault-proxy answers, in front of the stores the tests run (Swift's
 * s3api takes an upload's SSE-C headers, ignores them and serves the object without the key; the
 * emulators are not relied on for these answers):
 *
 * - AWS S3 (SSE-C), GetObject: 400, `InvalidRequest`, "The object was stored using a form of Server
 *   Side Encryption. The correct parameters must be provided to retrieve the object." (MinIO's and
 *   LocalStack's S3 answer the same; a HEAD gets the 400 without a body).
 * - Azure Blob Storage (customer-provided keys): 409 (Conflict), `x-ms-error-code:
 *   BlobUsesCustomerSpecifiedEncryption`, on Get Blob Properties (a HEAD: no body) and Get Blob
 *   (the XML error body: "The blob is encrypted with customer specified encryption, but it was not
 *   provided in the request.").
 * - Google Cloud Storage (customer-supplied encryption keys): the object's metadata is given without
 *   the key and carries `customerEncryption`; a media download gets 400 with the reason
 *   `resourceIsEncryptedWithCustomerEncryptionKey` ("The target object is encrypted by a
 *   customer-supplied encryption key.").
 *
 * Every answer carries fault-proxy's CANARY where the provider puts request ids, so a test can prove
 * none of it reaches viewer's output.
 */
import { CANARY, type Fault } from './fault-proxy.ts';

export const S3_SSE_C_MESSAGE = 'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.';

/** AWS's answer to a GetObject of an SSE-C object without the key. */
export function s3CustomerKeyAnswer(): Fault {
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>InvalidRequest</Code><Message>${S3_SSE_C_MESSAGE}</Message><RequestId>${CANARY}REQID</RequestId><HostId>${CANARY}HOSTID</HostId></Error>`;
  return { kind: 'respond', status: 400, body, headers: { 'content-type': 'application/xml', 'x-amz-request-id': `${CANARY}REQID`, 'x-amz-id-2': `${CANARY}HOSTID` } };
}

export const AZURE_CPK_CODE = 'BlobUsesCustomerSpecifiedEncryption';

/** Azure's answer to Get Blob Properties (`HEAD`, no body) or Get Blob of a CPK blob without the key. */
export function azureCustomerKeyAnswer(method: 'HEAD' | 'GET'): Fault {
  const headers = { 'x-ms-error-code': AZURE_CPK_CODE, 'x-ms-request-id': `${CANARY}REQID`, 'x-ms-version': '2025-01-05' };
  if (method === 'HEAD') return { kind: 'respond', status: 409, body: '', headers };
  const body = `<?xml version="1.0" encoding="utf-8"?><Error><Code>${AZURE_CPK_CODE}</Code><Message>The blob is encrypted with customer specified encryption, but it was not provided in the request.\nRequestId:${CANARY}REQID\nTime:2026-01-01T00:00:00.0000000Z</Message></Error>`;
  return { kind: 'respond', status: 409, body, headers: { ...headers, 'content-type': 'application/xml' } };
}

export const GCS_CSEK_REASON = 'resourceIsEncryptedWithCustomerEncryptionKey';

/** Cloud Storage's answer to a read of a CSEK object's bytes without the key. */
export function gcsCustomerKeyAnswer(): Fault {
  const body = JSON.stringify({ error: { code: 400, message: `The target object is encrypted by a customer-supplied encryption key. ${CANARY}`, errors: [{ message: `The target object is encrypted by a customer-supplied encryption key. ${CANARY}`, domain: 'global', reason: GCS_CSEK_REASON }] } });
  return { kind: 'respond', status: 400, body, headers: { 'content-type': 'application/json; charset=UTF-8', 'x-guploader-uploadid': `${CANARY}UPLOAD` } };
}

/** An object's metadata as Cloud Storage gives it for a CSEK object read without the key: `customerEncryption` added. */
export function gcsCustomerEncryptedMetadata(body: string): string {
  const metadata = JSON.parse(body) as Record<string, unknown>;
  return JSON.stringify({ ...metadata, customerEncryption: { encryptionAlgorithm: 'AES256', keySha256: `${CANARY}SHA256` } });
}
