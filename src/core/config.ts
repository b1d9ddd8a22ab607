import 'dotenv/config';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from './private-files.ts';

const int = (v: string | undefined, d: number) => (v === undefined || v === '' ? d : Number.parseInt(v, 10));

export const dataDir = process.env.SVC_DATA_DIR ?? join(process.cwd(), '.data');

/**
 * Development convenience: a master key generated once into .data/; production must set one. A
 * file another user owns or may read is refused (docs/security.md, The data folder).
 */
function masterKey(): Buffer {
  const fromEnv = process.env.SVC_MASTER_KEY;
  if (fromEnv) return parseKey(fromEnv, 'SVC_MASTER_KEY');
  if (process.env.NODE_ENV === 'production') throw new Error('SVC_MASTER_KEY is required in production');
  const file = join(dataDir, 'master.key');
  ensurePrivateDir(dataDir);
  if (!existsSync(file)) writePrivateFile(file, randomBytes(32).toString('hex'));
  return Buffer.from(readPrivateFile(file), 'hex');
}

/** Older master keys still accepted for reading (rotation): SVC_MASTER_KEY_PREVIOUS, comma-separated. */
function previousMasterKeys(): Buffer[] {
  return (process.env.SVC_MASTER_KEY_PREVIOUS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => parseKey(k, 'SVC_MASTER_KEY_PREVIOUS'));
}

function parseKey(value: string, name: string): Buffer {
  const key = Buffer.from(value, value.length === 64 ? 'hex' : 'base64');
  if (key.length !== 32) throw new Error(`${name} must be 32 bytes: 64 hex characters or base64`);
  return key;
}

export const config = {
  port: int(process.env.PORT, 4000),
  /** Where the server binds: loopback unless told (the image and docker-compose set HOST=0.0.0.0). */
  host: process.env.HOST || '127.0.0.1',
  databaseUrl: process.env.DATABASE_URL || undefined,
  redisUrl: process.env.REDIS_URL || undefined,
  hostedBaseUrl: process.env.HOSTED_BASE_URL || undefined,
  /**
   * The dashboard's sign-in (docs/dashboard.md): the OpenID Connect provider members sign in with,
   * and this service's public origin for its callback (unset: the request's own origin).
   */
  oidc: {
    issuer: process.env.SVC_OIDC_ISSUER || undefined,
    clientId: process.env.SVC_OIDC_CLIENT_ID || 'svc-dashboard',
    clientSecret: process.env.SVC_OIDC_CLIENT_SECRET || undefined,
  },
  publicUrl: process.env.SVC_PUBLIC_URL || undefined,
  get masterKey() {
    return (cachedKey ??= masterKey());
  },
  get previousMasterKeys() {
    return (cachedPrevious ??= previousMasterKeys());
  },
  logLevel: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
  bodyLimitBytes: int(process.env.SVC_BODY_LIMIT_BYTES, 1024 * 1024),
  /** Largest WebSocket message (graphql-ws): larger closes the socket with 1009. */
  wsMaxPayloadBytes: int(process.env.SVC_WS_MAX_PAYLOAD_BYTES, 64 * 1024),
  signatureToleranceSec: 300,
  idempotencyTtlHours: 24,
  /**
   * How long an in-flight Idempotency-Key claim holds before the same request may take it over
   * (a crash after commit): longer than the slowest operation (a refund: 3 provider calls of 10 s).
   */
  idempotencyLeaseSec: int(process.env.SVC_IDEMPOTENCY_LEASE_SEC, 60),
  /** graphql-ws: subscriptions one connection may hold open. */
  maxSubscriptionsPerSocket: int(process.env.SVC_MAX_SUBSCRIPTIONS, 20),
  cursorTtlSec: 24 * 3600,
  /** How long an auth lookup may be served from memory: the bound on "revocation within seconds". */
  keyCacheMs: int(process.env.SVC_KEY_CACHE_MS, 2000),
  rateLimits: {
    read: { perSec: int(process.env.SVC_RATE_READ, 100), burst: int(process.env.SVC_BURST_READ, 200) },
    mutating_light: { perSec: int(process.env.SVC_RATE_LIGHT, 20), burst: int(process.env.SVC_BURST_LIGHT, 40) },
    mutating_heavy: { perSec: int(process.env.SVC_RATE_HEAVY, 10), burst: int(process.env.SVC_BURST_HEAVY, 20) },
    /** Public hosted pages, per client address (IPv4, or IPv6 /64): a page, its polling and its actions. */
    hosted: { perSec: int(process.env.SVC_RATE_HOSTED, 20), burst: int(process.env.SVC_BURST_HOSTED, 100) },
    /**
     * Provider callbacks (`/v1/callbacks/*`), per client address, before any lookup: generous (a provider's
     * retries and bursts come from few addresses), but finite, since each may cost a verification call.
     */
    callback: { perSec: int(process.env.SVC_RATE_CALLBACK, 100), burst: int(process.env.SVC_BURST_CALLBACK, 1000) },
    /** Usage ingestion counts events, not requests (docs/usage.md, Admission). */
    usage_ingest: {
      perSec: int(process.env.SVC_RATE_USAGE_INGEST, 20_000),
      burst: int(process.env.SVC_BURST_USAGE_INGEST, 40_000),
    },
  },
  /** Connections of the ingestion pool, apart from the app pool (docs/usage.md, Admission). */
  usageDbPool: int(process.env.SVC_USAGE_DB_POOL, 2),
  /** Ingestion requests in flight per process; the rest wait their turn, round-robin by workspace. */
  usageIngestConcurrency: int(process.env.SVC_USAGE_INGEST_CONCURRENCY, 4),
  /** The longest an ingestion request waits for a slot before 503 (docs/usage.md, Admission). */
  usageAdmissionWaitMs: int(process.env.SVC_USAGE_ADMISSION_WAIT_MS, 2000),
  /** Fold loops in the worker (docs/usage.md, Fold). */
  usageFolders: int(process.env.SVC_USAGE_FOLDERS, 2),
  /** The body limit of POST /v1/usage-events. */
  usageBodyLimitBytes: int(process.env.SVC_USAGE_BODY_LIMIT_BYTES, 4 * 1024 * 1024),
  /** Buckets the in-memory rate limiter keeps (least recently used dropped first). */
  rateLimitBuckets: int(process.env.SVC_RATE_BUCKETS, 100_000),
  /**
   * Fastify `trustProxy` (`true`, or the proxies' addresses/CIDRs comma-separated): client addresses then come from
   * X-Forwarded-For.
   */
  trustProxy: process.env.SVC_TRUST_PROXY || undefined,
  rateLimitDisabled: process.env.SVC_RATE_LIMIT === 'off',
  poolSize: int(process.env.SVC_DB_POOL, 20),
  /**
   * Connections of the reconciliation pool (`SVC_RECON_POOL_SIZE`): uploads and pulls hold one for a whole file,
   * never the request pool's (docs/reconciliation.md, Import pipeline).
   */
  reconPoolSize: int(process.env.SVC_RECON_POOL_SIZE, 2),
  /**
   * The longest a request or job waits for a pooled connection (every pool: app, system, pg-boss)
   * or for a new one to open; then it fails with 503 `service_unavailable`, never hangs.
   */
  dbAcquireTimeoutMs: int(process.env.SVC_DB_ACQUIRE_TIMEOUT_MS, 5000),
  /** The reader pool's URL (src/core/db/reader.ts): a replica for reports and the ledger export; unset, the writer. */
  readDatabaseUrl: process.env.SVC_READ_DATABASE_URL || undefined,
  /** How stale a replica read may be (ms), checked with each read. */
  readMaxLagMs: int(process.env.SVC_READ_MAX_LAG_MS, 5000),
  /** How long a read waits for a reader connection before it runs on the writer. */
  readAcquireTimeoutMs: int(process.env.SVC_READ_ACQUIRE_TIMEOUT_MS, 1000),
  /** How long `svc start|serve|worker` wait for an unreachable database at boot before exiting 1. */
  dbBootWaitSec: int(process.env.SVC_DB_BOOT_WAIT_SEC, 60),
  /** While the database is away, one warning per component per this interval (src/core/db/unavailable.ts). */
  dbWarnIntervalMs: int(process.env.SVC_DB_WARN_INTERVAL_MS, 10_000),
  /** Outgoing mail (receipts): `smtp://user:pass@host:587` or `smtps://...:465`; unset, email is refused. */
  smtpUrl: process.env.SMTP_URL || undefined,
  /** Sender address of receipt email; the merchant's name is the display name. */
  smtpFrom: process.env.SMTP_FROM || 'receipts@svc.local',
  /**
   * The display name of invitation email (`SMTP_FROM_NAME`): fixed, never the inviting workspace's
   * name, which anyone can choose (docs/security.md, A free test workspace sends no phishing).
   */
  smtpFromName: process.env.SMTP_FROM_NAME || 'svc',
  /** Addresses one workspace may invite in 24 hours (`SVC_INVITATIONS_PER_DAY`). */
  invitationsPerDay: int(process.env.SVC_INVITATIONS_PER_DAY, 20),
  /**
   * The test sandbox's `async` scenario: an off-session charge stays `pending` this long before the
   * sandbox settles it `succeeded` (`SVC_SANDBOX_ASYNC_MS`; docs/guides/payment-methods.md, Test scenarios).
   */
  sandboxAsyncMs: int(process.env.SVC_SANDBOX_ASYNC_MS, 2000),
  /**
   * `svc worker` alone lowers its CPU priority to this nice value (`SVC_WORKER_NICE`, 0 keeps it): on a shared
   * machine a billing burst then never starves the API's event loop (docs/decisions.md, Worker CPU priority).
   */
  workerNice: int(process.env.SVC_WORKER_NICE, 10),
  /** Off-session provider calls in flight at once per adapter and worker (`SVC_OFFSESSION_CONCURRENCY`). */
  offSessionConcurrency: int(process.env.SVC_OFFSESSION_CONCURRENCY, 32),
  /** Where invoice email goes when SMTP_URL is unset (docs/decisions.md, Invoice email): one .eml per send. */
  mailOutboxDir: process.env.SVC_MAIL_OUTBOX || join(dataDir, 'outbox'),
  /** `GET /metrics` (docs/decisions.md, Metrics): `SVC_METRICS=off` removes it and its per-request cost. */
  metrics: {
    enabled: process.env.SVC_METRICS !== 'off',
    /** A bearer token that may read /metrics from anywhere. */
    token: process.env.SVC_METRICS_TOKEN || undefined,
    /**
     * `SVC_METRICS_PRIVATE=1`: the operator says no proxy fronts the port, so loopback peers read
     * without the token. Unset, the token is required (a same-host proxy is a loopback peer).
     */
    private: process.env.SVC_METRICS_PRIVATE === '1' || process.env.SVC_METRICS_PRIVATE === 'true',
    /** `svc worker` alone: the port of its own /metrics (its delivery attempts and lag); unset, none. */
    workerPort: int(process.env.SVC_WORKER_METRICS_PORT, 0),
  },
  /**
   * OpenTelemetry traces (src/core/tracing.ts), off by default: `SVC_OTEL=otlp` exports to
   * OTEL_EXPORTER_OTLP_ENDPOINT (OTLP/HTTP JSON), `SVC_OTEL=console` prints spans to stderr.
   * `SVC_OTEL_SAMPLE`: the share of new traces kept (parent-based: a sampled caller's trace is kept).
   */
  otel: {
    exporter: (process.env.SVC_OTEL || 'off') as 'off' | 'otlp' | 'console',
    sampleRatio: Number(process.env.SVC_OTEL_SAMPLE ?? '0.1'),
  },
};
let cachedKey: Buffer | undefined;
let cachedPrevious: Buffer[] | undefined;

export type RateClass = keyof typeof config.rateLimits;
