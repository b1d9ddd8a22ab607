// One billing worker as its own process (bench:billing and the renewals crash test): drains
// everything due at BILLING_AT on the real clock through `processDue`, as a `billing-batch` job does,
// printing one JSON line per pass, then exits. Several run side by side; one may be SIGKILLed.
// SWEEP_PENDING=1 (bench:collection:live): then the pending sweep at BILLING_AT, as the worker's
// `pending-sweep` job does: off-session charges whose lease passed are asked again at their provider.
import { connectAndMigrate } from '../src/core/db/setup.ts';
// Upper modules' reactions to lower ones (src/core/reactions.ts): this process is its own composition.
import '../src/modules/reactions.ts';
import { closeDatabase } from '../src/core/db/client.ts';
import { processDue } from '../src/modules/subscriptions/renewals.ts';
import { sweepPendingCharges } from '../src/modules/collection/waiting.ts';

const at = new Date(process.env.BILLING_AT ?? Date.now());
await connectAndMigrate({ migrate: false });
for (;;) {
  const r = await processDue({ scope: null, at, testClockId: null, limit: 500 });
  process.stdout.write(`${JSON.stringify(r)}\n`);
  if (!r.more && r.renewed + r.canceled + r.attempted === 0) break;
}
if (process.env.SWEEP_PENDING === '1') {
  // Bounded: a charge answered `pending` again gets a lease from the real time, which `at` may be past.
  for (let i = 0; i < 20; i++) {
    const n = await sweepPendingCharges(500, at);
    process.stdout.write(`${JSON.stringify({ swept: n })}\n`);
    if (n === 0) break;
  }
}
await closeDatabase();
process.exit(0);
