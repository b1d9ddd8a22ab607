import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { config as loadDotenv } from 'dotenv';
import { signRequest } from '../core/auth/signing.ts';

/**
 * `svc get|post|put|patch|delete <path>`: one signed API request (spec Request signing) with the
 * configured key. Exit codes (README "Talking to the API"): shell scripts branch on them.
 */
export const exitCodes = {
  ok: 0,
  /** anything unexpected (a bug, a refused trigger step) */
  error: 1,
  /** bad arguments: nothing was sent */
  usage: 2,
  /** no HTTP answer: connection refused or reset, DNS, timeout */
  network: 3,
  /** the server answered 4xx */
  clientError: 4,
  /** the server answered 5xx */
  serverError: 5,
} as const;

/** An error that ends the command with a given exit code and a one-line message (no stack). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = exitCodes.error,
  ) {
    super(message);
  }
}
export const usageError = (message: string) => new CliError(message, exitCodes.usage);

/** The options every API command takes: who signs and where to. */
export const connectionOptions = {
  'key-id': { type: 'string' },
  secret: { type: 'string' },
  'base-url': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export interface Connection {
  baseUrl: string;
  keyId: string;
  secret: string;
}

/** `.env` in the working directory, under the environment (never overriding it). */
export const loadEnvFile = () => void loadDotenv({ quiet: true });

/** SVC_BASE_URL, else this machine's server on PORT (4000). */
export const defaultBaseUrl = () => process.env.SVC_BASE_URL ?? `http://127.0.0.1:${process.env.PORT || 4000}`;

/**
 * Flags first, then the environment, then `.env` in the working directory (never overriding the
 * environment). The default base URL is this machine's server on `PORT` (4000), so a `.env` shared
 * with `svc start` needs no extra line.
 */
export function connection(values: { 'key-id'?: string; secret?: string; 'base-url'?: string }): Connection {
  loadEnvFile();
  const keyId = values['key-id'] ?? process.env.SVC_KEY_ID;
  const secret = values.secret ?? process.env.SVC_SECRET;
  if (!keyId || !secret)
    throw usageError('no API key: set SVC_KEY_ID and SVC_SECRET (environment or .env) or pass --key-id and --secret');
  const baseUrl = (values['base-url'] ?? defaultBaseUrl()).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(baseUrl) || !URL.canParse(baseUrl))
    throw usageError(`--base-url must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  return { baseUrl, keyId, secret };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The body's bytes: documents (PDF, ESC/POS) are written as they came. */
  raw: Buffer;
  text: string;
  json: any;
}

const TIMEOUT_MS = 30_000;
const MAX_429_RETRIES = 5;

/**
 * One signed request. A 429 is retried after its Retry-After with the same Idempotency-Key (the
 * server answers a replay with the first result, spec Idempotency); any other answer is returned.
 * No answer at all is a CliError with the network exit code.
 */
export async function apiRequest(
  conn: Connection,
  method: string,
  target: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const raw = body === undefined ? '' : JSON.stringify(body);
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(conn.baseUrl + target, {
        method,
        headers: {
          ...signRequest({ keyId: conn.keyId, secret: conn.secret, method, target, body: raw }),
          ...(raw ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: raw || undefined,
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      throw new CliError(`${method} ${conn.baseUrl}${target}: ${networkReason(e)}`, exitCodes.network);
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    if (res.status === 429 && attempt < MAX_429_RETRIES) {
      const wait = Math.min(Number(res.headers.get('retry-after')) || 1, 30);
      await new Promise((r) => setTimeout(r, wait * 1000));
      continue;
    }
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      /* a document (PDF, HTML, ESC/POS) or a proxy's page */
    }
    return { status: res.status, headers: res.headers, raw: bytes, text, json };
  }
}

function networkReason(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  return err.cause?.code ?? err.cause?.message ?? err.message;
}

/** The exit code an HTTP status maps to. */
export const exitCodeOf = (status: number) =>
  status >= 500 ? exitCodes.serverError : status >= 400 ? exitCodes.clientError : exitCodes.ok;

/**
 * `-d` fields into a body. `a.b=v` sets a string (dots nest), `a:=json` sets a JSON value
 * (numbers, booleans, null, arrays, objects), `a[]=v` / `a[]:=json` append to an array, and
 * `@file` (or `@-`, stdin) is a JSON object the other fields are merged into.
 */
export function buildBody(fields: string[], readFile: (path: string) => string = readInput): Record<string, unknown> {
  let body: Record<string, unknown> = {};
  const named = new Set<string>(); // names given by fields: twice is a mistake, over a file's value is not
  for (const field of fields) {
    if (field.startsWith('@')) {
      const parsed = parseJson(readFile(field.slice(1)), field);
      if (!isObject(parsed)) throw usageError(`${field}: the file must hold a JSON object`);
      body = { ...body, ...parsed };
      continue;
    }
    const m = /^([^=:]+?)(:=|=)(.*)$/s.exec(field);
    if (!m) throw usageError(`-d ${JSON.stringify(field)}: expected name=value or name:=json`);
    const [, name, op, rawValue] = m;
    const value = op === ':=' ? parseJson(rawValue, field) : rawValue;
    if (named.has(name) && !name.endsWith('[]')) throw usageError(`-d ${JSON.stringify(field)}: ${name} is set twice`);
    named.add(name);
    setPath(body, name, value, field);
  }
  return body;
}

function setPath(body: Record<string, unknown>, name: string, value: unknown, field: string) {
  const append = name.endsWith('[]');
  const keys = (append ? name.slice(0, -2) : name).split('.');
  if (keys.some((k) => !k)) throw usageError(`-d ${JSON.stringify(field)}: empty name segment`);
  let node = body;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (next === undefined) node[key] = {};
    else if (!isObject(next)) throw usageError(`-d ${JSON.stringify(field)}: ${key} is already a value`);
    node = node[key] as Record<string, unknown>;
  }
  const last = keys[keys.length - 1];
  if (!append) {
    node[last] = value;
    return;
  }
  const list = node[last] ?? [];
  if (!Array.isArray(list)) throw usageError(`-d ${JSON.stringify(field)}: ${last} is not a list`);
  node[last] = [...list, value];
}

/** GET and DELETE carry `-d` fields in the query string; only flat values fit there. */
export function buildQuery(path: string, fields: string[]): string {
  if (!fields.length) return path;
  const body = buildBody(fields);
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(body)) {
    if (isObject(v) || Array.isArray(v)) throw usageError(`-d ${k}: nested values cannot go in a query string`);
    params.append(k, String(v));
  }
  return `${path}${path.includes('?') ? '&' : '?'}${params}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJson(text: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw usageError(`-d ${JSON.stringify(field)}: not valid JSON`);
  }
}

const readInput = (path: string) => {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (e) {
    throw usageError(`cannot read ${path}: ${(e as Error).message}`);
  }
};

/**
 * `--select data.id`: one value of the JSON answer, for shell variables. A string prints bare, anything
 * else as JSON; a path that is not there prints nothing and fails the command.
 */
export function selectValue(json: unknown, path: string): string {
  let node: unknown = json;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(key in node))
      throw new CliError(`--select ${path}: the answer has no ${key}`);
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === 'string' ? node : JSON.stringify(node);
}

/** The body as received when piped (byte for byte); indented JSON on a terminal. */
export function printBody(res: ApiResponse, out: NodeJS.WriteStream = process.stdout) {
  if (!res.raw.length) return;
  if (out.isTTY && res.json !== null) out.write(`${JSON.stringify(res.json, null, 2)}\n`);
  // JSON as received plus a final newline (a shell prompt, `wc -l` and `read` expect one);
  // documents (PDF, CSV) byte for byte.
  else if (res.json !== null && res.raw[res.raw.length - 1] !== 0x0a) out.write(Buffer.concat([res.raw, NEWLINE]));
  else out.write(res.raw);
}
const NEWLINE = Buffer.from('\n');

const methods = { get: 'GET', post: 'POST', put: 'PUT', patch: 'PATCH', delete: 'DELETE' } as const;
export type Verb = keyof typeof methods;
export const isVerb = (s: string): s is Verb => s in methods;

/** `svc <verb> <path> [-d ...]`: prints the body, a one-line summary of an error on stderr, and exits by status. */
export async function request(verb: Verb, args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      data: { type: 'string', short: 'd', multiple: true },
      'idempotency-key': { type: 'string' },
      header: { type: 'string', short: 'H', multiple: true },
      verbose: { type: 'boolean', short: 'v' },
      select: { type: 'string', short: 's' },
    },
  });
  const method = methods[verb];
  const [path, ...extra] = positionals;
  if (!path || extra.length)
    throw usageError(`usage: svc ${verb} <path> [-d name=value | name:=json | @file ...] (one path)`);
  if (!path.startsWith('/')) throw usageError(`the path must start with /, e.g. /v1/customers (got ${path})`);
  const conn = connection(values);
  const fields = values.data ?? [];
  const inQuery = method === 'GET' || method === 'DELETE';
  const target = inQuery ? buildQuery(path, fields) : path;
  const body = inQuery ? undefined : buildBody(fields);
  const headers: Record<string, string> = {};
  for (const h of values.header ?? []) {
    const cut = h.indexOf(':');
    if (cut <= 0) throw usageError(`-H ${JSON.stringify(h)}: expected "Name: value"`);
    headers[h.slice(0, cut).trim().toLowerCase()] = h.slice(cut + 1).trim();
  }
  // spec Idempotency: every write carries a key; a fresh one per command unless given.
  if (method !== 'GET' && !headers['idempotency-key'])
    headers['idempotency-key'] = values['idempotency-key'] ?? randomUUID();
  if (values.verbose) {
    process.stderr.write(`> ${method} ${conn.baseUrl}${target}\n`);
    if (headers['idempotency-key']) process.stderr.write(`> Idempotency-Key: ${headers['idempotency-key']}\n`);
  }
  const res = await apiRequest(conn, method, target, body, headers);
  if (values.verbose) {
    process.stderr.write(`< ${res.status}\n`);
    const requestId = res.headers.get('x-request-id') ?? res.json?.meta?.requestId;
    if (requestId) process.stderr.write(`< request id ${requestId}\n`);
  }
  const code = exitCodeOf(res.status);
  const location = res.headers.get('location');
  if (res.status >= 300 && res.status < 400 && location) process.stderr.write(`svc: ${res.status} -> ${location}\n`);
  // With --select, stdout is a shell variable's value: a failure's envelope goes to stderr, never into it.
  if (values.select) {
    if (code) printBody(res, process.stderr);
    else process.stdout.write(`${selectValue(res.json, values.select)}\n`);
  } else printBody(res);
  if (code) {
    const error = res.json?.error;
    process.stderr.write(
      `svc: ${res.status}${error?.code ? ` ${error.code}` : ''}${error?.message ? `: ${error.message}` : ''}\n`,
    );
    process.exitCode = code;
  }
}
