/**
 * ListObjectsV2 read by viewer's own parser (issue 28, list-objects-parser.ts), everything else the
 * SDK's: the command is the SDK's `ListObjectsV2Command` (its endpoint parameters, its plugins,
 * its input schema and serializer), sent by the client's own stack, so signing, credentials,
 * retries, throttling, the clock-skew correction from the `Date` header and every error answer stay
 * exactly as they were. The one change is a middleware next to the transport, innermost in the
 * deserialize step: a 2xx answer's body is handed chunk by chunk, as it arrives, to
 * `ListObjectsParser`, and the SDK's deserializer then gets an empty body, so it builds no tree
 * and no output fields (only `$metadata`). The parsed listing is kept on the command (`listing`),
 * as the driver already keeps a page's `Date` header beside the output.
 *
 * (This SDK version deserializes by schema: the client's `deserializerMiddleware` reads the
 * operation schema, and a command's own `deserialize` from the class builder's `.de()` is never
 * called. So the parser is placed in the stack rather than in `.de()`; subclassing the SDK's built
 * command keeps every other part of the builder's output.)
 *
 * Error answers are never parsed here: a non-2xx response passes on untouched, so the SDK names
 * the error (NoSuchBucket, AccessDenied, SlowDown...) as before. A 2xx whose body is S3's `<Error>`
 * document is handed back whole, so the SDK's `throw200ExceptionsMiddleware` turns it into the
 * same 503 as before. Any other body that is no listing is refused by the parser with a
 * `StoreError` `incompatible_format`, marked with the 2xx status the way the SDK marks its own
 * deserialization failures (not retried; `classify.ts` reads it as `incompatible_format` too).
 * `EncodingType=url` is always requested.
 */
import { ListObjectsV2Command, type ListObjectsV2CommandInput } from '@aws-sdk/client-s3';
import { ListObjectsParser, malformedListing, type ParsedListing } from './list-objects-parser.ts';

type Stack = Parameters<ListObjectsV2Command['resolveMiddleware']>[0];
type Config = Parameters<ListObjectsV2Command['resolveMiddleware']>[1];
type Handler = ReturnType<ListObjectsV2Command['resolveMiddleware']>;
type Middleware = Parameters<ListObjectsV2Command['middlewareStack']['addRelativeTo']>[0];
type Next = (args: unknown) => Promise<{ response: unknown }>;

interface RawResponse {
  statusCode?: unknown;
  body?: unknown;
}

/** The HTTP response as the transport hands it over (smithy's HttpResponse). */
function rawResponse(value: unknown): RawResponse | null {
  return typeof value === 'object' && value !== null && 'statusCode' in value ? (value) : null;
}

async function* chunksOf(body: unknown): AsyncGenerator<Uint8Array> {
  if (body === undefined || body === null) return;
  if (body instanceof Uint8Array) {
    yield body;
    return;
  }
  if (typeof body === 'string') {
    yield Buffer.from(body, 'utf8');
    return;
  }
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') throw malformedListing('a body that cannot be read');
  for await (const chunk of body as AsyncIterable<unknown>) {
    if (chunk instanceof Uint8Array) yield chunk;
    else if (typeof chunk === 'string') yield Buffer.from(chunk, 'utf8');
    else throw malformedListing('a body chunk that is no bytes');
  }
}

/** Marks a refusal with the answer's status, as the SDK marks its own deserialization errors. */
function withStatus(error: unknown, status: number): unknown {
  if (typeof error === 'object' && error !== null && !('$metadata' in error)) {
    Object.defineProperty(error, '$metadata', { value: { httpStatusCode: status }, enumerable: false, configurable: true });
  }
  return error;
}

export class ViewerListObjectsV2Command extends ListObjectsV2Command {
  #listing: ParsedListing | null = null;

  constructor(input: ListObjectsV2CommandInput) {
    // Without it one key XML cannot carry (a control character) fails the whole listing.
    super({ ...input, EncodingType: 'url' });
  }

  /** The parsed page of the last answer; only after `client.send` resolved. */
  get listing(): ParsedListing {
    if (this.#listing === null) throw malformedListing('no listing was parsed');
    return this.#listing;
  }

  override resolveMiddleware(clientStack: Stack, configuration: Config, options: unknown): Handler {
    const parse = (next: Next) => async (args: unknown) => {
      this.#listing = null;
      const result = await next(args);
      const response = rawResponse(result.response);
      const status = typeof response?.statusCode === 'number' ? response.statusCode : 0;
      if (response === null || status < 200 || status >= 300) return result;
      const parser = new ListObjectsParser();
      const seen: Uint8Array[] = [];
      let refusal: unknown = null;
      for await (const chunk of chunksOf(response.body)) {
        if (parser.errorDocument) {
          seen.push(chunk);
          continue;
        }
        seen.push(chunk);
        try {
          parser.push(chunk);
        } catch (error) {
          if (!parser.errorDocument) {
            refusal = error;
            break;
          }
        }
      }
      if (parser.errorDocument) {
        // S3's error document with a 2xx: the SDK's own middleware and deserializer make it an error.
        response.body = Buffer.concat(seen);
        return result;
      }
      if (refusal !== null) {
        (response.body as { destroy?: () => void } | undefined)?.destroy?.();
        throw withStatus(refusal, status);
      }
      try {
        this.#listing = parser.end();
      } catch (error) {
        throw withStatus(error, status);
      }
      response.body = new Uint8Array(0);
      return result;
    };
    // Relative to the SDK's deserializer, added before the command's own plugins (which the
    // builder adds inside super.resolveMiddleware): the stack places it innermost, next to the transport.
    this.middlewareStack.addRelativeTo(parse as unknown as Middleware, { relation: 'after', toMiddleware: 'deserializerMiddleware', name: 'viewerListingParser', override: true });
    return super.resolveMiddleware(clientStack, configuration, options);
  }
}
