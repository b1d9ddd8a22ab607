// Current usage latency at volume (docs/usage.md, Current usage): skipped unless
// SVC_USAGE_LATENCY_EVENTS is set, e.g. SVC_USAGE_LATENCY_EVENTS=1000000 npx vitest run
// test/modules/usage-rollups/latency.test.ts. Events are written as ingestion writes them (1,000 per
// journal batch) straight into the tables, folded by the fold itself, then read over HTTP.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { db, useServer } from '../../helpers/server.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { customer } from '../../helpers/renewals.ts';
import { foldTurn } from '../../../src/modules/usage-rollups/fold.ts';

const events = Number(process.env.SVC_USAGE_LATENCY_EVENTS ?? 0);
const server = useServer();
const key = () => ({ 'idempotency-key': randomUUID() });

describe.skipIf(!events)('current usage latency', () => {
  it(`reads ${events} folded events of one subscription in constant time`, async () => {
    const ws = await server.workspace();
    const meterBody = {
      key: 'n',
      name: 'n',
      eventName: 'use',
      aggregation: 'sum',
      valueProperty: 'n',
      groupBy: ['region'],
    };
    const meterId = (await ws.client.post('/v1/meters', meterBody, key())).json.data.id;
    const prices = [
      { currency: 'IDR', model: 'flat', unitAmount: 1000 },
      { currency: 'IDR', model: 'usage', unitAmount: 1, meterId },
    ];
    const priceId = (await postPlan(ws, planBody({ prices }))).json.data.prices[0].id;
    const cus = await customer(ws);
    const sub = (
      await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: 'pm_test_success' }, key())
    ).json.data.id;
    const t0 = Date.now();
    const batches = Math.ceil(events / 1000);
    for (let b = 0; b < batches; b += 100) {
      await db().system.query(
        `WITH s AS (SELECT nextval(pg_get_serial_sequence('usage_ingest_batches', 'seq')) AS seq, g
            FROM generate_series(1, $4::int) g),
          j AS (INSERT INTO usage_ingest_batches (id, "workspaceId", mode, seq, kind, "eventCount", "firstSeq", "lastSeq", "receivedAt")
            SELECT 'ubat_lat' || $5 || '_' || g, $1, 'test', seq, 'ingest', 1000, seq * 1024, seq * 1024 + 999, now() FROM s)
        INSERT INTO usage_events ("workspaceId", mode, id, "eventName", "customerId", "timestamp", "receivedAt", properties,
            "meterIds", "ingestSeq", "batchId")
          SELECT $1, 'test', 'e' || s.seq || '_' || i, 'use', $2, now(), now(),
            jsonb_build_object('n', i % 7, 'region', CASE i % 3 WHEN 0 THEN 'eu' WHEN 1 THEN 'us' ELSE 'ap' END),
            ARRAY[$3], s.seq * 1024 + i, 'ubat_lat' || $5 || '_' || s.g
          FROM s, generate_series(0, 999) i`,
        [ws.workspaceId, cus, meterId, Math.min(100, batches - b), b],
      );
    }
    const written = Date.now();
    while ((await foldTurn()) > 0);
    const foldedAt = Date.now();
    const get = (q = '') => ws.client.get(`/v1/subscriptions/${sub}/current-usage${q}`);
    const first = await get();
    // Each batch of 1,000 sums i % 7 over 0..999: 2,997.
    expect(first.json.data.items[0].value).toBe(String(batches * 2997));
    const times = async (q: string) => {
      const ms: number[] = [];
      for (let i = 0; i < 200; i++) {
        const s = performance.now();
        expect((await get(q)).status).toBe(200);
        ms.push(performance.now() - s);
      }
      ms.sort((a, b) => a - b);
      return { p50: ms[99].toFixed(1), p99: ms[197].toFixed(1) };
    };
    const plain = await times('');
    const grouped = await times(`?meterId=${meterId}&groupBy=region`);
    console.log(
      JSON.stringify({
        events,
        writeMs: written - t0,
        foldMs: foldedAt - written,
        value: first.json.data.items[0].value,
        plain,
        grouped,
      }),
    );
  }, 3_600_000);
});
