// One billing worker as its own process (bench:billing and the renewals crash test): drains
// everything due at BILLING_AT on the real clock through `processDue`, as a `billing-batch` job does,
// printing one JSON line per pass, then exits. Several run side by side; one may be SIGKILLed.
import { connectAndMigrate } from '../src/core/db/setup.ts';
import { closeDatabase } from '../src/core/db/client.ts';
import { processDue } from '../src/modules/subscriptions/renewals.ts';

const at = new Date(process.env.BILLING_AT ?? Date.now());
await connectAndMigrate({ migrate: false });
for (;;) {
  const r = await processDue({ scope: null, at, testClockId: null, limit: 500 });
  process.stdout.write(`${JSON.stringify(r)}\n`);
  if (!r.more && r.renewed + r.canceled + r.attempted === 0) break;
}
await closeDatabase();
process.exit(0);
