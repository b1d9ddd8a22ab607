// The merchant dashboard (docs/dashboard.md, The app): sign-in state, the shell (navigation, the mode
// switch that always shows the mode, the language switch), the live feed, and the screens.
import './style.css';
import type { Client } from '@urql/core';
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import {
  createApiClient,
  type FeedEvent,
  loadSession,
  type Mode,
  openFeed,
  type Session,
  signOut,
  switchWorkspace,
} from './api.ts';
import { dictionaries, initialLang, type Lang, languageNames } from './i18n.ts';
import { CustomerDetail, Customers, Home, PaymentDetail, Payments, type ScreenProps } from './screens.tsx';
import { Billing } from './billing.tsx';
import { InvoiceDetail } from './invoice.tsx';
import { Invoices } from './invoices.tsx';
import { Payouts } from './payouts.tsx';
import { Reports } from './reports.tsx';
import { Settings } from './settings.tsx';
import { Developers, Team } from './team.tsx';
import { Webhooks } from './webhooks.tsx';

const LIVE_TYPES = /^(payment|refund|checkout_session|customer|invoice|payout)\./;

function SignedOut({ lang }: { lang: Lang }) {
  const t = dictionaries[lang];
  return (
    <main class="signed-out">
      <h1>{t.signedOutTitle}</h1>
      <p>{t.signedOutText}</p>
      <p>
        <a class="button" href="/dashboard/auth/login">
          {t.signIn}
        </a>
      </p>
    </main>
  );
}

function App({ session, initialMode }: { session: Session; initialMode: Mode }) {
  const [lang, setLang] = useState<Lang>(initialLang());
  const [mode, setMode] = useState<Mode>(initialMode);
  const [path, setPath] = useState(location.pathname);
  const [feed, setFeed] = useState<FeedEvent[]>([]);
  const [connected, setConnected] = useState(false);
  const [tick, setTick] = useState(0);
  const [ended, setEnded] = useState(false);
  const t = dictionaries[lang];
  const client: Client = useMemo(() => createApiClient(session, mode, () => setEnded(true)), [session, mode]);
  useEffect(() => {
    document.documentElement.lang = lang;
    localStorage.setItem('svc.lang', lang);
  }, [lang]);
  useEffect(() => {
    setFeed([]);
    return openFeed(session, mode, {
      event: (e) => {
        setFeed((f) => (f.some((x) => x.id === e.id) ? f : [e, ...f].slice(0, 50)));
        if (LIVE_TYPES.test(e.type)) setTick((n) => n + 1);
      },
      state: setConnected,
      ended: () => setEnded(true),
    });
  }, [session, mode]);
  useEffect(() => {
    const back = () => setPath(location.pathname);
    addEventListener('popstate', back);
    return () => removeEventListener('popstate', back);
  }, []);
  if (ended) return <SignedOut lang={lang} />;
  const navigate = (to: string) => {
    history.pushState(null, '', to);
    setPath(to);
  };
  const canAct = session.member.role !== 'read_only';
  const props = { client, t, lang, tick, canAct, navigate };
  return (
    <div class={`shell mode-${mode}`}>
      <div class="mode-banner" data-testid="mode-banner">
        {mode === 'live' ? t.liveMode : t.testMode}
      </div>
      <header>
        <WorkspaceSwitch session={session} t={t} ended={() => setEnded(true)} />
        <MainNav t={t} path={path} navigate={navigate} />
        <Controls session={session} t={t} mode={mode} setMode={setMode} lang={lang} setLang={setLang} />
      </header>
      <main>
        <Screen path={path} props={props} session={session} mode={mode} feed={feed} connected={connected} />
      </main>
    </div>
  );
}

type Dict = ScreenProps['t'];

/** The screen for the path: a detail page by its id, else the list under the path, else home. */
function Screen({
  path,
  props,
  session,
  mode,
  feed,
  connected,
}: {
  path: string;
  props: ScreenProps;
  session: Session;
  mode: Mode;
  feed: FeedEvent[];
  connected: boolean;
}) {
  const detail = /^\/dashboard\/payments\/([^/]+)$/.exec(path);
  const customer = /^\/dashboard\/customers\/([^/]+)$/.exec(path);
  const invoice = /^\/dashboard\/invoices\/([^/]+)$/.exec(path);
  return detail ? (
    <PaymentDetail {...props} id={decodeURIComponent(detail[1]!)} />
  ) : customer ? (
    <CustomerDetail {...props} id={decodeURIComponent(customer[1]!)} />
  ) : invoice ? (
    <InvoiceDetail {...props} id={decodeURIComponent(invoice[1]!)} />
  ) : path.startsWith('/dashboard/payments') ? (
    <Payments {...props} />
  ) : path.startsWith('/dashboard/customers') ? (
    <Customers {...props} />
  ) : path.startsWith('/dashboard/invoices') ? (
    <Invoices {...props} />
  ) : path.startsWith('/dashboard/billing') ? (
    <Billing {...props} />
  ) : path.startsWith('/dashboard/payouts') ? (
    <Payouts {...props} />
  ) : path.startsWith('/dashboard/team') ? (
    <Team {...props} workspaceId={session.workspace.id} role={session.member.role} />
  ) : path.startsWith('/dashboard/reports') ? (
    <Reports {...props} session={session} mode={mode} />
  ) : path.startsWith('/dashboard/webhooks') ? (
    <Webhooks {...props} />
  ) : path.startsWith('/dashboard/settings') ? (
    <Settings {...props} workspaceId={session.workspace.id} role={session.member.role} />
  ) : path.startsWith('/dashboard/developers') ? (
    <Developers {...props} />
  ) : (
    <Home {...props} feed={feed} connected={connected} />
  );
}

/** The workspace's name, or a switch when the member belongs to several. */
function WorkspaceSwitch({ session, t, ended }: { session: Session; t: Dict; ended: () => void }) {
  if (session.workspaces.length <= 1) return <strong class="brand">{session.workspace.name}</strong>;
  return (
    <label class="brand">
      <span class="sr-only">{t.workspace}</span>
      <select
        data-testid="workspace-switch"
        value={session.workspace.id}
        onChange={async (e) => {
          // A new session in the chosen workspace: the page starts again (cache, feed, mode).
          if (await switchWorkspace(session, (e.target as HTMLSelectElement).value)) {
            sessionStorage.removeItem('svc.mode');
            location.assign('/dashboard/');
          } else ended();
        }}
      >
        {session.workspaces.map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The navigation: links that move without a reload and mark the screen on show. */
function MainNav({ t, path, navigate }: { t: Dict; path: string; navigate: (to: string) => void }) {
  const link = (to: string, label: string) => (
    <a
      href={to}
      aria-current={(to === '/dashboard/' ? path === to : path.startsWith(to)) ? 'page' : undefined}
      onClick={(e) => {
        e.preventDefault();
        navigate(to);
      }}
    >
      {label}
    </a>
  );
  return (
    <nav aria-label="Main">
      {link('/dashboard/', t.home)}
      {link('/dashboard/payments', t.payments)}
      {link('/dashboard/customers', t.customers)}
      {link('/dashboard/invoices', t.invoices)}
      {link('/dashboard/billing', t.subscriptions)}
      {link('/dashboard/payouts', t.payouts)}
      {link('/dashboard/reports', t.reports)}
      {link('/dashboard/webhooks', t.webhooksTitle)}
      {link('/dashboard/team', t.team)}
      {link('/dashboard/developers', t.developers)}
      {link('/dashboard/settings', t.settings)}
    </nav>
  );
}

/** The mode switch (live only when the workspace may), the language, who is signed in, sign-out. */
function Controls({
  session,
  t,
  mode,
  setMode,
  lang,
  setLang,
}: {
  session: Session;
  t: Dict;
  mode: Mode;
  setMode: (m: Mode) => void;
  lang: Lang;
  setLang: (l: Lang) => void;
}) {
  return (
    <div class="controls">
      <label>
        {t.modeLabel}{' '}
        <select
          data-testid="mode-switch"
          value={mode}
          onChange={(e) => {
            const m = (e.target as HTMLSelectElement).value as Mode;
            sessionStorage.setItem('svc.mode', m);
            setMode(m);
          }}
        >
          <option value="test">{t.testMode}</option>
          <option value="live" disabled={!session.workspace.liveEnabled}>
            {t.liveMode}
          </option>
        </select>
      </label>
      <label>
        {t.language}{' '}
        <select value={lang} onChange={(e) => setLang((e.target as HTMLSelectElement).value as Lang)}>
          <option value="id">{languageNames.id}</option>
          <option value="en">{languageNames.en}</option>
        </select>
      </label>
      <span class="who">
        {session.member.email} ({session.member.role})
      </span>
      <button
        type="button"
        onClick={async () => {
          await signOut(session);
          location.assign('/dashboard/');
        }}
      >
        {t.signOut}
      </button>
    </div>
  );
}

async function start() {
  const root = document.getElementById('app')!;
  const session = await loadSession();
  if (!session) return render(<SignedOut lang={initialLang()} />, root);
  const saved = sessionStorage.getItem('svc.mode');
  const mode: Mode = saved === 'live' && session.workspace.liveEnabled ? 'live' : 'test';
  render(<App session={session} initialMode={mode} />, root);
}
void start();
