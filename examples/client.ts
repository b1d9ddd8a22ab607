// The typed client in a few calls: run against a server with a test-mode key,
//   SVC_BASE_URL=http://127.0.0.1:3000 SVC_KEY_ID=pk_test_... SVC_SECRET=... npx tsx examples/client.ts
// (test/client/example.test.ts runs it against a real server).
import { Svc, SvcError } from 'svc-payments';

const svc = new Svc({
  baseUrl: process.env.SVC_BASE_URL ?? 'http://127.0.0.1:3000',
  keyId: process.env.SVC_KEY_ID ?? '',
  secret: process.env.SVC_SECRET ?? '',
});

// A write: signed, sent with a fresh Idempotency-Key that its retries reuse.
const customer = await svc.api.createCustomer({
  body: { name: 'Jane Doe', email: 'jane@example.com', metadata: { crmId: 'c-42' } },
});
console.log('created', customer.id, customer.email);

const updated = await svc.api.updateCustomer({ params: { id: customer.id }, body: { name: 'Jane Q. Doe' } });
console.log('renamed', updated.name);

// Every page of a list, one item at a time (limit is the page size, not a total).
let count = 0;
for await (const c of svc.paginate('listCustomers', { query: { limit: 2, metadata: { crmId: 'c-42' } } })) {
  count += c.id ? 1 : 0;
}
console.log('customers with crmId c-42:', count);

// Errors are typed: status, the route's code, the request id to quote.
try {
  await svc.api.getCustomer({ params: { id: 'cus_00000000000000000000000000' } });
} catch (e) {
  if (!(e instanceof SvcError)) throw e;
  console.log('lookup failed', e.status, e.code, e.requestId?.slice(0, 4));
}
