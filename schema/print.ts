import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printSchema } from 'graphql';
import { schema } from './index.ts';

/** `npm run schema:print`: writes schema/schema.graphql; a test fails when it is stale. */
export const schemaPath = join(import.meta.dirname, 'schema.graphql');
export const printed = () => `${printSchema(schema)}\n`;

if (process.argv[1] === import.meta.filename) {
  writeFileSync(schemaPath, printed());
  console.log(`wrote ${schemaPath}`);
}
