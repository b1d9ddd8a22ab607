import { downloadRoutes } from './downloads.ts';
import type { EdgeRoute } from './edge-route.ts';
import { hostedRoutes } from './hosted.ts';

/** Every route outside GraphQL: mounted by the app, and those with `api` documented (rest-compat/openapi.ts). */
export const edgeRoutes: readonly EdgeRoute[] = [...hostedRoutes, ...downloadRoutes];
