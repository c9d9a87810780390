import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` writes a new SQL migration into migrations/ from src/db/schema.ts.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema.ts',
  out: './migrations',
});
