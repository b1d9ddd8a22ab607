import { builder } from '../../graphql/builder.ts';
import { exposeFields } from '../../graphql/fields.ts';
import { adapterKinds, type AdapterKind } from './capabilities.ts';
import { adapterFields, onboardingFields, type AdapterView, type OnboardingView } from './fields.ts';
import {
  configureManual,
  connectProviderA,
  connectProviderB,
  connectProviderC,
  getManagedOnboarding,
  listAdapters,
  startManagedOnboarding,
} from './service.ts';
import { admission } from '../../graphql/operation.ts';

export const Adapter = builder.objectRef<AdapterView>('Adapter').implement({
  description:
    'A connection to a payment provider; one per kind. Secrets are write-only: only secretKeyLast4 is returned.',
  fields: (t) => exposeFields(t, adapterFields),
});

export const Adapters = builder.objectRef<Partial<Record<AdapterKind, AdapterView>>>('Adapters').implement({
  description: 'The workspace adapters keyed by kind; a never-connected kind is null (REST omits it).',
  fields: (t) =>
    Object.fromEntries(
      adapterKinds.map((k) => [k, t.field({ type: Adapter, nullable: true, resolve: (p) => p[k] ?? null })]),
    ),
});

const ManagedOnboarding = builder.objectRef<OnboardingView>('ManagedOnboarding').implement({
  fields: (t) => exposeFields(t, onboardingFields),
});

const ConnectProviderAAdapterInput = builder.inputType('ConnectProviderAAdapterInput', {
  fields: (t) => ({
    secretKey: t.string({
      required: true,
      description: 'xnd_development_... in test mode, xnd_production_... in live mode.',
    }),
    callbackToken: t.string({ description: 'Recommended: without it inbound callbacks cannot be verified.' }),
  }),
});
const ConnectProviderBAdapterInput = builder.inputType('ConnectProviderBAdapterInput', {
  fields: (t) => ({
    serverKey: t.string({ required: true }),
    clientKey: t.string({ required: true }),
    merchantId: t.string({ required: true }),
    env: t.string({ description: '`sandbox` (default) or `production`.' }),
  }),
});
const ConnectProviderCAdapterInput = builder.inputType('ConnectProviderCAdapterInput', {
  fields: (t) => ({
    clientId: t.string({ required: true }),
    secret: t.string({ required: true }),
    mode: t.string({ description: '`live` (default) or `sandbox`.' }),
  }),
});
const ManualBankAccountInput = builder.inputType('ManualBankAccountInput', {
  fields: (t) => ({
    bankName: t.string({ required: true }),
    accountNumber: t.string({ required: true }),
    accountHolder: t.string({ required: true }),
  }),
});
const ConfigureManualAdapterInput = builder.inputType('ConfigureManualAdapterInput', {
  description: 'Replaces the whole manual configuration.',
  fields: (t) => ({
    bankAccounts: t.field({ type: [ManualBankAccountInput] }),
    staticQrImageUrl: t.string(),
    instructions: t.string(),
  }),
});
export type ProviderAInput = typeof ConnectProviderAAdapterInput.$inferInput;
export type ProviderBInput = typeof ConnectProviderBAdapterInput.$inferInput;
export type ProviderCInput = typeof ConnectProviderCAdapterInput.$inferInput;
export type ManualInput = typeof ConfigureManualAdapterInput.$inferInput;

const StartManagedOnboardingInput = builder.inputType('StartManagedOnboardingInput', {
  fields: (t) => ({ email: t.string({ required: true }) }),
});

builder.queryFields((t) => ({
  adapters: t.field({
    ...admission({ resource: 'adapter', scope: 'svc:adapter:read' }),
    type: Adapters,
    resolve: (_, __, ctx) => listAdapters(ctx),
  }),
  managedOnboarding: t.field({
    ...admission({ resource: 'adapter', scope: 'svc:adapter:read' }),
    type: ManagedOnboarding,
    resolve: (_, __, ctx) => getManagedOnboarding(ctx),
  }),
}));

builder.mutationFields((t) => ({
  connectProviderAAdapter: t.field({
    ...admission({ resource: 'adapter', scope: 'svc:adapter:write', idempotencyKey: 'required' }),
    type: Adapter,
    args: { input: t.arg({ type: ConnectProviderAAdapterInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => connectProviderA(ctx, input),
  }),
  connectProviderBAdapter: t.field({
    ...admission({ resource: 'adapter', scope: 'svc:adapter:write', idempotencyKey: 'required' }),
    type: Adapter,
    args: { input: t.arg({ type: ConnectProviderBAdapterInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => connectProviderB(ctx, input),
  }),
  connectProviderCAdapter: t.field({
    ...admission({ resource: 'adapter', scope: 'svc:adapter:write', idempotencyKey: 'required' }),
    type: Adapter,
    args: { input: t.arg({ type: ConnectProviderCAdapterInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => connectProviderC(ctx, input),
  }),
  configureManualAdapter: t.field({
    ...admission({ resource: 'adapter', scope: 'svc:adapter:write', idempotencyKey: 'required' }),
    type: Adapter,
    args: { input: t.arg({ type: ConfigureManualAdapterInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => configureManual(ctx, input),
  }),
  startManagedOnboarding: t.field({
    ...admission({ resource: 'adapter', scope: 'svc:adapter:write' }),
    type: ManagedOnboarding,
    args: { input: t.arg({ type: StartManagedOnboardingInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => startManagedOnboarding(ctx, input),
  }),
}));
