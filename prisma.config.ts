import { defineConfig } from 'prisma/config';

// Prisma 7 reads the datasource URL from here, not from the schema.
export default defineConfig({
  schema: 'prisma/schema',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/svc' },
});
