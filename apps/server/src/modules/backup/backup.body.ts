import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

/**
 * JSON bodies for the backup routes (restore takes up to RESTORE_BODY_LIMIT), read as they arrive:
 * each chunk is decoded when it comes, so the end of a large upload costs one parse, not a copy of
 * the whole body, its decoding and its parse in one go (tens of milliseconds for 8 MB during which
 * nothing else is answered). Otherwise the API's parser: an empty body is no body, more than
 * `limit` bytes is 413 (by Content-Length or as counted), a body shorter or longer than its
 * Content-Length is 400, prototype poisoning and invalid JSON are refused by Fastify's own parser.
 * Registered inside the routes' plugin, so the parser elsewhere is untouched.
 */
export function registerStreamingJsonBody(app: FastifyInstance, limit: number): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Whatever the content type, as the API's parser (platform/json-body.ts): `curl -d @backup.json`.
  app.removeContentTypeParser(['application/json', '*']);
  app.addContentTypeParser(
    ['application/json', '*'],
    { bodyLimit: limit },
    (request: FastifyRequest, payload: IncomingMessage) => {
      return new Promise<unknown>((resolve, reject) => {
        const declared = Number(request.headers['content-length']);
        if (declared > limit) {
          reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
          return;
        }
        const decoder = new StringDecoder('utf8');
        let text = '';
        let received = 0;
        const stop = () => {
          payload.removeListener('data', onData);
          payload.removeListener('end', onEnd);
          payload.removeListener('error', onError);
        };
        const onData = (chunk: Buffer | string) => {
          const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
          received += bytes.length;
          if (received > limit) {
            stop();
            reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
            return;
          }
          text += decoder.write(bytes);
        };
        const onEnd = () => {
          stop();
          if (!Number.isNaN(declared) && received !== declared) {
            reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
            return;
          }
          text += decoder.end();
          if (text.trim() === '') {
            resolve(undefined);
            return;
          }
          // Fastify's parser answers through the callback, synchronously.
          void parseJson(request, text, (err, body) => (err ? reject(err) : resolve(body)));
        };
        const onError = (err: Error & { statusCode?: number }) => {
          stop();
          if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
          reject(err);
        };
        payload.on('data', onData);
        payload.on('end', onEnd);
        payload.on('error', onError);
        payload.resume();
      });
    },
  );
}
