import type { FieldSpec } from '../../graphql/fields.ts';
import type { AdapterKind } from './capabilities.ts';
import { adapterMachine } from './states.ts';

/** spec Adapter: one per kind (no id); `managed` is derived from the sub-account profile. */
export interface AdapterView {
  kind: AdapterKind;
  status: string;
  secretKeyLast4: string | null;
  publicConfig: Record<string, unknown>;
  configuredAt: Date;
  lastErrorAt: Date | null;
  lastErrorCode: string | null;
}

export const adapterFields: FieldSpec<AdapterView> = {
  kind: { kind: 'string' },
  status: { kind: 'string', states: adapterMachine },
  secretKeyLast4: { kind: 'string', nullable: true },
  publicConfig: { kind: 'json' },
  configuredAt: { kind: 'date' },
  lastErrorAt: { kind: 'date', nullable: true },
  lastErrorCode: { kind: 'string', nullable: true },
};

/** spec Managed onboarding state. */
export interface OnboardingView {
  subAccountId: string | null;
  kybStatus: string;
  capabilitiesStatus: string;
  payoutsReady: boolean;
  onboardingUrl: string | null;
}

export const onboardingFields: FieldSpec<OnboardingView> = {
  subAccountId: { kind: 'string', nullable: true },
  kybStatus: { kind: 'string' },
  capabilitiesStatus: { kind: 'string' },
  payoutsReady: { kind: 'bool' },
  onboardingUrl: { kind: 'string', nullable: true },
};
