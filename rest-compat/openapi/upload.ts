// The reconciliation upload (src/server/uploads.ts) in the document: a raw file body, the import in the envelope.
import { UPLOAD_PATH } from '../../src/server/uploads.ts';
import { openApiPath } from './probe.ts';
import { errorCodesOf, errorResponse } from './responses.ts';
import type { Builder, Schema } from './schemas.ts';

const query: [string, string, boolean][] = [
  ['source', '`provider_report` or `bank_statement`.', true],
  ['adapter', 'Provider reports (required there): provider_a, provider_b, provider_c, provider_a_platform.', false],
  ['bankAccountNumber', 'Bank statements (required there): 5-34 letters or digits.', false],
  ['format', 'Default `generic` (provider reports) or `generic_bank` (bank statements).', false],
  ['filename', 'As given, at most 255 characters.', false],
  ['periodStart', 'ISO 8601 instant or YYYY-MM-DD (00:00 UTC); with periodEnd.', false],
  ['periodEnd', 'After periodStart, at most 366 days later; with periodStart.', false],
];

/** POST /v1/reconciliation/imports, after the table's routes (it reuses the import's response schema). */
export function addUploadRoute(b: Builder, paths: Record<string, Record<string, unknown>>) {
  const got = paths[openApiPath(`${UPLOAD_PATH}/:id`)]?.get as { responses: Record<string, { content: unknown }> };
  const content = got.responses['200'].content;
  const parameters: Schema[] = [
    ...query.map(([name, description, required]) => ({
      name,
      in: 'query',
      required,
      schema: { type: 'string' },
      description,
    })),
    {
      name: 'X-Svc-Content-Sha256',
      in: 'header',
      required: true,
      schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      description: "Lower-case hex SHA-256 of the body: signed in place of the body's own hash.",
    },
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
      description: 'Optional: a repeated key replays the first response; other bytes under it are a 409.',
    },
    { $ref: '#/components/parameters/OnBehalfOf' },
  ];
  const file = { schema: { type: 'string', contentMediaType: 'text/csv' } };
  const responses: Record<string, unknown> = {
    201: { description: 'A new file: the import, its rows staged and a run queued.', content },
    200: { description: 'The same bytes again: the first import, unchanged.', content },
  };
  const errors = errorCodesOf(
    { path: UPLOAD_PATH, resource: 'reconciliation', errors: ['invalid_file', 'invalid_header', 'invalid_row'] },
    { list: false, requiresKey: false, mutation: true, hasBody: false },
  );
  for (const [code, spelled] of [...errors, [415, new Set(['unsupported_media_type'])] as const].sort(
    ([x], [y]) => x - y,
  ))
    responses[code] = { $ref: `#/components/responses/${errorResponse(b, code, [...spelled])}` };
  paths[openApiPath(UPLOAD_PATH)].post = {
    operationId: 'uploadReconciliationImport',
    tags: ['reconciliation'],
    summary: 'Upload a provider report or bank statement: the raw file is the body (docs/reconciliation.md).',
    description: 'Served outside GraphQL (docs/reconciliation.md, Import pipeline); no size limit.',
    parameters,
    requestBody: {
      required: true,
      content: { 'text/csv': file, 'text/plain': file, 'application/octet-stream': file },
    },
    responses,
    'x-svc-rate-class': 'mutating_heavy',
  };
}
