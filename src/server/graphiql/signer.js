// GraphiQL in the browser, signing every request (src/server/graphiql.ts serves this file).
// spec Request signing: signature = hex(HMAC-SHA256(SHA-256(secret), canonical)), canonical =
// timestamp \n METHOD \n target \n hex(SHA-256(body)); the same as src/core/auth/signing.ts.
// The key id and secret stay in this tab's sessionStorage (gone when the tab closes); a live key
// is refused unless the user ticks "allow live" (test mode by default).
// A block in strict mode: its functions stay inside it, as in a closure, and nothing reaches the page's globals.
'use strict';
{
  const store = window.sessionStorage;
  const $ = (id) => document.getElementById(id);
  const enc = new TextEncoder();
  const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
  const sha256 = (data) => crypto.subtle.digest('SHA-256', typeof data === 'string' ? enc.encode(data) : data);

  const credentials = () => ({
    keyId: store.getItem('svc.keyId') || '',
    secret: store.getItem('svc.secret') || '',
    allowLive: store.getItem('svc.allowLive') === '1',
  });
  const status = (text, bad) => {
    const el = $('svc-status');
    el.textContent = text;
    el.className = bad ? 'bad' : '';
  };
  function showSaved() {
    const c = credentials();
    $('svc-key-id').value = c.keyId;
    $('svc-secret').value = c.secret;
    $('svc-allow-live').checked = c.allowLive;
    if (!c.keyId) status('Type a key id and its secret (test keys: pk_test_...)', true);
    else status(`Signing as ${c.keyId} (${c.keyId.startsWith('pk_live_') ? 'LIVE' : 'test'} mode)`, false);
  }

  /** The key bar: saves or forgets the key id and secret in this tab, and says which key signs. */
  function mountKeyBar() {
    $('svc-bar').addEventListener('submit', (e) => {
      e.preventDefault();
      store.setItem('svc.keyId', $('svc-key-id').value.trim());
      store.setItem('svc.secret', $('svc-secret').value.trim());
      store.setItem('svc.allowLive', $('svc-allow-live').checked ? '1' : '0');
      showSaved();
    });
    $('svc-forget').addEventListener('click', () => {
      for (const k of ['svc.keyId', 'svc.secret', 'svc.allowLive']) store.removeItem(k);
      showSaved();
    });
    showSaved();
  }

  /** The two headers of a signed request, or a thrown Error the user can read in the result pane. */
  async function sign(method, target, body) {
    const { keyId, secret, allowLive } = credentials();
    if (!keyId || !secret) throw new Error('No API key: type its key id and secret in the bar above, then Save.');
    if (keyId.startsWith('pk_live_') && !allowLive)
      throw new Error('This is a live key: tick "allow live" to run operations on live data.');
    const timestamp = String(Math.floor(Date.now() / 1000));
    const canonical = [timestamp, method, target, hex(await sha256(body))].join('\n');
    const key = await crypto.subtle.importKey('raw', await sha256(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    const signature = hex(await crypto.subtle.sign('HMAC', key, enc.encode(canonical)));
    return { authorization: `Svc-HMAC-SHA256 keyId=${keyId}, scope=*, signature=${signature}`, timestamp };
  }

  const endpoint = '/graphql';
  // graphql-ws: connection_init carries {authorization, timestamp}, signed as GET /graphql with an
  // empty body; computed on each (re)connection, so a reconnect is signed afresh.
  let socket = null;
  function wsClient() {
    if (socket) return socket;
    const url = `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${endpoint}`;
    socket = window.graphqlWs.createClient({
      url,
      lazy: true,
      retryAttempts: 0,
      connectionParams: () => sign('GET', endpoint, ''),
      on: { closed: () => (socket = null) },
    });
    return socket;
  }

  /** The top-level operations of a document, `{type, name}` each (strings, comments and fragments skipped). */
  function operationsIn(query) {
    const text = query.replace(/"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*/g, '');
    const ops = [];
    let depth = 0;
    let pending = null;
    for (const m of text.matchAll(/[{}]|\b(query|mutation|subscription|fragment)\b(?:\s+([_A-Za-z]\w*))?/g)) {
      if (m[0] === '}') depth--;
      else if (m[0] === '{') {
        if (depth === 0) {
          if (pending?.type !== 'fragment') ops.push(pending ?? { type: 'query', name: null });
          pending = null;
        }
        depth++;
      } else if (depth === 0) pending = { type: m[1], name: m[2] ?? null };
    }
    return ops;
  }

  /**
   * The operation to run. GraphiQL's `operationName` lags behind the editor for a moment after an
   * edit: a name the document does not hold falls back to its one operation.
   */
  function operationOf(params) {
    const ops = operationsIn(params.query);
    const named = params.operationName && ops.find((o) => o.name === params.operationName);
    return named || (ops.length === 1 ? ops[0] : { type: 'query', name: params.operationName ?? null });
  }

  async function httpFetch(params, opts, operationName) {
    const body = JSON.stringify({ query: params.query, variables: params.variables ?? null, operationName });
    const signed = await sign('POST', endpoint, body);
    // Headers typed in GraphiQL's header pane (e.g. Idempotency-Key) go along; the signature wins.
    const headers = {
      ...(opts?.headers ?? {}),
      'content-type': 'application/json',
      authorization: signed.authorization,
      'x-svc-timestamp': signed.timestamp,
    };
    const res = await fetch(endpoint, { method: 'POST', headers, body });
    const text = await res.text();
    try {
      return JSON.parse(text);
    } catch {
      return { errors: [{ message: `HTTP ${res.status}: ${text.slice(0, 500)}` }] };
    }
  }

  function fetcher(params, opts) {
    // GraphiQL's schema introspection and every tab's query run through here: signed or refused.
    const op = operationOf(params);
    if (op.type !== 'subscription') {
      return httpFetch(params, opts, op.name).catch((e) => ({ errors: [{ message: e.message }] }));
    }
    return wsClient().iterate({
      query: params.query,
      variables: params.variables ?? undefined,
      operationName: op.name ?? undefined,
    });
  }

  /** GraphiQL with the signing fetcher, rendered once every script has run. */
  function mountGraphiQL() {
    // Monaco's workers come from this server too (no CDN, no blob: URLs), set before the bundle loads.
    window.MonacoEnvironment = {
      globalAPI: false,
      getWorkerUrl: (_moduleId, label) => `/graphiql/worker-${label}.js`,
    };
    window.svcGraphiQL = { sign, fetcher };
    // The GraphiQL bundle is the next script: render once every script has run.
    document.addEventListener('DOMContentLoaded', () => {
      window.YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), {
        title: 'svc GraphQL',
        fetcher,
        defaultQuery:
          '# Signed with the key in the bar above (test mode by default).\nquery {\n  customers(first: 5) {\n    edges { node { id name } }\n  }\n}\n',
      });
    });
  }

  mountKeyBar();
  mountGraphiQL();
}
