/**
 * List Blobs answers read by viewer's own parser (issue 28, list-blobs-parser.ts), everything else
 * the SDK's: the request is built, signed, retried and sent by the container client's own
 * pipeline, and its errors are the SDK's. The one change is a pipeline policy placed next to the
 * SDK's deserialization policy, on the transport's side: a 2xx answer to a List Blobs request
 * (`restype=container&comp=list`) is parsed by `parseListBlobs`, kept on the response (`listingOf`
 * reads it back from the page the SDK hands over), and replaced, for the SDK's deserializer, by an
 * empty listing with the same `NextMarker`, so the SDK builds no tree and maps no blob. A body that
 * is no listing is refused here as `incompatible_format`; any other answer passes untouched.
 *
 * (The pipeline is reached through the client's `storageClientContext`, which the SDK's types mark
 * protected: it is core-client's ServiceClient, whose `pipeline.addPolicy` is public API. A test
 * fails if a listing stops coming from this parser.)
 */
import { malformedBlobListing, parseListBlobs, type ParsedBlobListing } from './list-blobs-parser.ts';

const LISTING = Symbol('viewer.listBlobs');
const POLICY_NAME = 'viewerListBlobsParser';

interface Request {
  readonly url: string;
}
interface Response {
  status: number;
  bodyAsText?: string | null;
}
interface Policy {
  readonly name: string;
  sendRequest(request: Request, next: (request: Request) => Promise<Response>): Promise<Response>;
}
interface PolicyHost {
  readonly storageClientContext?: { readonly pipeline?: { addPolicy(policy: Policy, options: { phase: 'Deserialize'; afterPolicies: string[] }): void; getOrderedPolicies(): { name: string }[] } };
}

function isListBlobs(url: string): boolean {
  const query = url.indexOf('?');
  if (query === -1) return false;
  const params = new URLSearchParams(url.slice(query + 1));
  return params.get('restype') === 'container' && params.get('comp') === 'list';
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** What the SDK's deserializer gets instead: no blob, the same marker. */
function emptyListing(nextMarker: string | null): string {
  return `<?xml version="1.0" encoding="utf-8"?><EnumerationResults><Blobs/>${nextMarker === null ? '' : `<NextMarker>${escapeXml(nextMarker)}</NextMarker>`}</EnumerationResults>`;
}

const policy: Policy = {
  name: POLICY_NAME,
  async sendRequest(request, next) {
    const response = await next(request);
    if (response.status < 200 || response.status >= 300 || !isListBlobs(request.url)) return response;
    if (typeof response.bodyAsText !== 'string') throw malformedBlobListing('no body');
    const listing = parseListBlobs(response.bodyAsText);
    response.bodyAsText = emptyListing(listing.nextMarker);
    (response as unknown as Record<symbol, ParsedBlobListing>)[LISTING] = listing;
    return response;
  },
};

/** Puts the parser into the pipeline `client` (a ContainerClient or BlobServiceClient) sends with; once per pipeline. */
export function useViewerListing(client: object): void {
  const pipeline = (client as PolicyHost).storageClientContext?.pipeline;
  if (pipeline === undefined) throw new Error('the Azure SDK client has no pipeline to add the listing parser to');
  if (pipeline.getOrderedPolicies().some((p) => p.name === POLICY_NAME)) return;
  pipeline.addPolicy(policy, { phase: 'Deserialize', afterPolicies: ['deserializationPolicy'] });
}

/** The listing viewer's parser read for the page the SDK handed over (its `_response`), if it did. */
export function listingOf(rawResponse: unknown): ParsedBlobListing | undefined {
  return typeof rawResponse === 'object' && rawResponse !== null ? (rawResponse as Record<symbol, ParsedBlobListing | undefined>)[LISTING] : undefined;
}
