/** spec Numbers: plan tiers; `enterprise` has no cap. */
export const tiers = {
  starter: { maxApiKeys: 10, maxWebhookEndpoints: 5 },
  growth: { maxApiKeys: 50, maxWebhookEndpoints: 20 },
  enterprise: { maxApiKeys: Infinity, maxWebhookEndpoints: Infinity },
} as const;

export type Tier = keyof typeof tiers;
export const capOf = (tier: string, cap: keyof (typeof tiers)['starter']) =>
  (tiers[tier as Tier] ?? tiers.starter)[cap];
