// Settings: branding, the receipt and invoice templates, and the portal features, through the
// existing mutations (updateWorkspace, createTemplate, updateTemplate). Branding is the workspace's
// brand name plus the accent colour and logo of the default receipt and invoice templates (there is no
// workspace-level colour or logo; docs/dashboard.md, Settings). Owners and admins change them.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type {
  DashboardCreateTemplateMutation,
  DashboardCreateTemplateMutationVariables,
  DashboardSettingsQuery,
  DashboardSettingsQueryVariables,
  DashboardUpdateTemplateMutation,
  DashboardUpdateTemplateMutationVariables,
  DashboardUpdateWorkspaceMutation,
  DashboardUpdateWorkspaceMutationVariables,
  UpdateTemplateInput,
} from './generated/operations.ts';
import { type Answer, problem, useActions, useQuery, useServerForm } from './hooks.ts';
import { CreateTemplateDocument, SettingsDocument, UpdateTemplateDocument, UpdateWorkspaceDocument } from './operations.ts';
import type { ScreenProps } from './screens.tsx';

const KINDS = ['receipt', 'invoice'] as const;
const PORTAL = ['viewInvoices', 'updatePaymentMethod', 'changePlan', 'cancel'] as const;
type Template = DashboardSettingsQuery['templates']['edges'][number]['node'];
const orNull = (s: string) => (s.trim() === '' ? null : s.trim());
type Texts = Record<string, { tagline: string; footerText: string; thankYouText: string }>;
interface SettingsForm {
  brandName: string;
  accent: string;
  logoUrl: string;
  texts: Texts;
  portal: Record<string, boolean>;
}

/** The template a kind's documents use: its default, else the newest of the kind. */
const defaultOf = (all: Template[], kind: string) =>
  all.find((x) => x.kind === kind && x.isDefault) ?? all.find((x) => x.kind === kind);

/** The form as the server has it: the brand name, the default templates' look and texts, the portal. */
function settingsFormOf(ws: DashboardSettingsQuery['workspace'] | undefined, templates: Template[]): SettingsForm {
  const any = defaultOf(templates, 'receipt') ?? defaultOf(templates, 'invoice');
  return {
    brandName: ws?.brandName ?? '',
    accent: any?.accentColor ?? '#1a56db',
    logoUrl: any?.logoUrl ?? '',
    texts: Object.fromEntries(
      KINDS.map((k) => {
        const t = defaultOf(templates, k);
        return [k, { tagline: t?.tagline ?? '', footerText: t?.footerText ?? '', thankYouText: t?.thankYouText ?? '' }];
      }),
    ),
    portal: { ...((ws?.portalSettings ?? {}) as Record<string, boolean>) },
  };
}

const field = (label: string, input: JSX.Element) => (
  <label class="field">
    {label} {input}
  </label>
);

export function Settings(p: ScreenProps & { workspaceId: string; role: string }) {
  const canEdit = p.canAct && (p.role === 'owner' || p.role === 'admin');
  const { note, again, report } = useActions();
  const q = useQuery<DashboardSettingsQuery, DashboardSettingsQueryVariables>(
    p.client,
    SettingsDocument,
    { workspaceId: p.workspaceId },
    again,
  );
  const ws = q.data?.workspace;
  const templates = q.data?.templates.edges.map((e) => e.node) ?? [];
  const server = q.data ? settingsFormOf(ws, templates) : undefined;
  const f = useServerForm<SettingsForm>(server, { brandName: '', accent: '#1a56db', logoUrl: '', texts: {}, portal: {} });
  const { brandName, accent, logoUrl, texts, portal } = f.form;
  const set = (patch: Partial<SettingsForm>) => f.edit({ ...f.form, ...patch });

  const done = (r: Answer) => {
    const ok = report(r, p.t.saved);
    if (ok) f.saved();
    return ok;
  };
  /** The kind's default template changed, or created (as the default) when the kind has none. */
  async function saveTemplate(kind: string, input: UpdateTemplateInput) {
    const current = defaultOf(templates, kind);
    const idempotencyKey = crypto.randomUUID();
    return current
      ? p.client.mutation<DashboardUpdateTemplateMutation, DashboardUpdateTemplateMutationVariables>(UpdateTemplateDocument, { id: current.id, input, idempotencyKey }).toPromise()
      : p.client
          .mutation<DashboardCreateTemplateMutation, DashboardCreateTemplateMutationVariables>(CreateTemplateDocument, {
            input: { ...input, kind, name: `${ws?.brandName ?? ws?.name ?? 'Default'} ${kind}`, isDefault: true },
            idempotencyKey,
          })
          .toPromise();
  }
  async function saveBranding(e: Event) {
    e.preventDefault();
    if (brandName.trim()) {
      const r = await p.client
        .mutation<DashboardUpdateWorkspaceMutation, DashboardUpdateWorkspaceMutationVariables>(UpdateWorkspaceDocument, { id: p.workspaceId, input: { brandName: brandName.trim() } })
        .toPromise();
      if (problem(r)) return done(r);
    }
    for (const kind of KINDS) {
      const t = await saveTemplate(kind, { accentColor: accent, logoUrl: orNull(logoUrl) });
      if (problem(t)) return done(t);
    }
    done({});
  }
  /** Only the fields changed are sent: an untouched default (the bilingual thank-you line) stays a default. */
  async function saveTexts(e: Event, kind: string) {
    e.preventDefault();
    const x = texts[kind]!;
    const t = defaultOf(templates, kind);
    const input: UpdateTemplateInput = {};
    for (const f of ['tagline', 'footerText', 'thankYouText'] as const)
      if (x[f] !== (t?.[f] ?? '')) input[f] = orNull(x[f]);
    done(await saveTemplate(kind, input));
  }
  async function savePortal(e: Event) {
    e.preventDefault();
    const portalSettings = Object.fromEntries(PORTAL.map((k) => [k, Boolean(portal[k])]));
    done(await p.client.mutation<DashboardUpdateWorkspaceMutation, DashboardUpdateWorkspaceMutationVariables>(UpdateWorkspaceDocument, { id: p.workspaceId, input: { portalSettings } }).toPromise());
  }
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  const setText = (kind: string, field: 'tagline' | 'footerText' | 'thankYouText', v: string) =>
    set({ texts: { ...texts, [kind]: { ...texts[kind]!, [field]: v } } });
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">{p.t.settings}</h1>
      {q.error ? <p role="alert">{q.error}</p> : null}
      {note ? <p role="status">{note}</p> : null}
      {q.data ? forms() : null}
    </section>
  );
  /** Shown once the settings are loaded, so what is typed is never overwritten by the first answer. */
  function forms() {
    return (
    <>
      <form class="refund" data-testid="branding-form" onSubmit={saveBranding}>
        <h2>{p.t.branding}</h2>
        <fieldset disabled={!canEdit}>
          {field(p.t.brandName, <input value={brandName} onInput={(e) => set({ brandName: value(e) })} />)}{' '}
          {field(p.t.accentColor, <input type="color" value={accent} onInput={(e) => set({ accent: value(e) })} />)}{' '}
          {field(p.t.logoUrl, <input type="url" value={logoUrl} onInput={(e) => set({ logoUrl: value(e) })} />)}
        </fieldset>
        {canEdit ? <button type="submit">{p.t.save}</button> : null}
      </form>
      {KINDS.map((kind) => (
        <TemplateTextsForm key={kind} p={p} kind={kind} canEdit={canEdit} texts={texts} setText={setText} save={saveTexts} />
      ))}
      <form class="refund" data-testid="portal-form" onSubmit={savePortal}>
        <h2>{p.t.portalFeatures}</h2>
        <fieldset disabled={!canEdit}>
          <legend class="sr-only">{p.t.portalFeatures}</legend>
          {PORTAL.map((k) => (
            <label key={k} class="field">
              <input
                type="checkbox"
                checked={Boolean(portal[k])}
                onChange={(e) => set({ portal: { ...portal, [k]: (e.target as HTMLInputElement).checked } })}
              />{' '}
              {p.t.portal[k]}
            </label>
          ))}
        </fieldset>
        {canEdit ? <button type="submit">{p.t.save}</button> : null}
      </form>
    </>
    );
  }
}

type TextField = 'tagline' | 'footerText' | 'thankYouText';

/** One kind's default template texts: tagline, footer, thank-you line. */
function TemplateTextsForm({
  p,
  kind,
  canEdit,
  texts,
  setText,
  save,
}: {
  p: ScreenProps;
  kind: string;
  canEdit: boolean;
  texts: Texts;
  setText: (kind: string, field: TextField, v: string) => void;
  save: (e: Event, kind: string) => Promise<void>;
}) {
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  return (
    <form class="refund" data-testid={`template-${kind}`} onSubmit={(e) => save(e, kind)}>
      <h2>{kind === 'receipt' ? p.t.receiptTemplate : p.t.invoiceTemplate}</h2>
      <fieldset disabled={!canEdit}>
        {field(
          p.t.tagline,
          <input value={texts[kind]?.tagline ?? ''} onInput={(e) => setText(kind, 'tagline', value(e))} />,
        )}{' '}
        {field(
          p.t.footerText,
          <input value={texts[kind]?.footerText ?? ''} onInput={(e) => setText(kind, 'footerText', value(e))} />,
        )}{' '}
        {field(
          p.t.thankYouText,
          <input value={texts[kind]?.thankYouText ?? ''} onInput={(e) => setText(kind, 'thankYouText', value(e))} />,
        )}
      </fieldset>
      {canEdit ? <button type="submit">{p.t.save}</button> : null}
    </form>
  );
}
