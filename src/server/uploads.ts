/**
 * POST /v1/reconciliation/imports (docs/reconciliation.md, Import pipeline): the raw file is the body, handed over
 * as the request's stream (no buffering, no body limit). The one admission pipeline (`admit`) runs on the headers
 * before a byte is read: the declared `X-Svc-Content-Sha256` (400), the signature over it (401), the scope (403),
 * the rate class (429), then the content type (415), the query parameters (400) and a free upload slot (429).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { OperationTypeNode } from 'graphql';
import { sha256Hex } from '../core/crypto.ts';
import { DomainError, isDomainError } from '../core/errors.ts';
import type { RateLimiter } from '../core/rate-limit.ts';
import type { Operation } from '../graphql/operation.ts';
import { importSnapshot } from '../modules/reconciliation/fields.ts';
import { importUpload, parserFor } from '../modules/reconciliation/import.ts';
import { checkUploadParams, type UploadParams } from '../modules/reconciliation/upload-params.ts';
import { admit, asStored, authenticatePresented, presentedBy, type AdmitSteps, type Response } from './admission.ts';
import { idempotencyKeyOf } from './edge.ts';
import { replyError } from './edge-route.ts';
import { envelope } from './envelope.ts';

export const UPLOAD_PATH = '/v1/reconciliation/imports';
const resource = 'reconciliation';
/** Uploads streaming at once in this process; beyond, 429 with `Retry-After: 1`. */
export const MAX_STREAMING_UPLOADS = 4;
const mediaTypes = ['text/csv', 'text/plain', 'application/octet-stream'];

/** What admitting an upload needs, declared once, as a GraphQL root field declares it (src/graphql/operation.ts). */
const uploadOperation: Operation = {
  operation: OperationTypeNode.MUTATION,
  fields: [
    {
      name: 'uploadReconciliationImport',
      rateClass: 'mutating_heavy',
      requiresIdempotencyKey: false,
      scope: 'svc:reconciliation:write',
      resource,
    },
  ],
};

interface UploadInput {
  req: FastifyRequest;
  sha256?: string;
  params?: UploadParams;
  /** Holds one of the streaming slots: given back when the response is sent. */
  slot?: boolean;
}

let streaming = 0;
export const streamingUploads = () => streaming;

const header = (req: FastifyRequest, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

function declaredSha256(req: FastifyRequest): string {
  const v = header(req, 'x-svc-content-sha256');
  if (v === undefined || !/^[0-9a-f]{64}$/.test(v))
    throw new DomainError('validation_error', 'X-Svc-Content-Sha256 must be the lower-case hex SHA-256 of the body', {
      field: 'X-Svc-Content-Sha256',
      resource,
    });
  return v;
}

function checkMediaType(req: FastifyRequest) {
  const type = (header(req, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!mediaTypes.includes(type))
    throw new DomainError('unsupported_media_type', `Content-Type must be one of ${mediaTypes.join(', ')}`, {
      resource,
    });
}

/** A body the client stopped sending is the client's doing (nothing was kept), not a fault of ours. */
function cutOff(req: FastifyRequest, e: unknown): unknown {
  if (isDomainError(e) || req.raw.complete) return e;
  return new DomainError('validation_error', 'The body ended before it was complete', { field: 'body', resource });
}

function takeSlot(i: UploadInput) {
  if (streaming >= MAX_STREAMING_UPLOADS)
    throw new DomainError('rate_limited', `At most ${MAX_STREAMING_UPLOADS} uploads stream at once; retry shortly`, {
      headers: { 'retry-after': '1' },
      resource,
    });
  streaming++;
  i.slot = true;
}

function uploadSteps(limiter: RateLimiter): AdmitSteps<UploadInput, Response> {
  return {
    transport: 'rest',
    limiter,
    parses: false,
    authenticate: async (i) => {
      i.sha256 = declaredSha256(i.req);
      const p = presentedBy(i.req);
      const presented = { method: p.method, target: p.target, body: p.body, bodySha256: i.sha256 };
      return (await authenticatePresented({ ...presented, header: (n) => p.header(n) })).auth;
    },
    operation: () => uploadOperation,
    read: (i) => {
      checkMediaType(i.req);
      const query = i.req.query as Record<string, string | string[] | undefined>;
      const one = (n: string) => {
        const v = query[n];
        return Array.isArray(v) ? v[v.length - 1] : v;
      };
      i.params = checkUploadParams(Object.keys(query), one);
      // The format's own option checks, before a byte is read (the zone is the workspace's, checked again then).
      parserFor(i.params, 'UTC');
      takeSlot(i);
    },
    idempotencyHeader: (i) => idempotencyKeyOf(i.req),
    fingerprint: (i) => sha256Hex(`uploadReconciliationImport\n${i.req.url}\n`) + i.sha256,
    execute: async (i, ctx) => {
      const out = await importUpload({
        auth: ctx.auth,
        params: i.params!,
        sha256: i.sha256!,
        body: i.req.body as Readable,
        requestId: ctx.requestId,
      }).catch((e) => {
        throw cutOff(i.req, e);
      });
      return {
        status: out.created ? 201 : 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: envelope(ctx.requestId, importSnapshot(out.import)),
      };
    },
    ok: () => true,
    // Bytes that were not the signed ones are no request of the key's: the key is released, not stored.
    asStored: (i, e) => {
      if (isDomainError(e) && e.canonical === 'invalid_signature') throw e;
      return asStored(e, i.req.requestId, resource);
    },
  };
}

/** The upload route, in a context of its own whose only body parser hands over the request stream unread. */
export function mountUploads(app: FastifyInstance, limiter: RateLimiter) {
  const steps = uploadSteps(limiter);
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    scope.post(UPLOAD_PATH, async (req: FastifyRequest, reply: FastifyReply) => {
      const input: UploadInput = { req };
      try {
        const out = await admit(steps, req.requestId, input);
        if (out.replayed) reply.header('idempotent-replayed', 'true');
        return reply.status(out.result.status).headers(out.result.headers).send(out.result.body);
      } catch (e) {
        return replyError(reply, e, req.requestId, resource);
      } finally {
        if (input.slot) streaming--;
      }
    });
  });
}
