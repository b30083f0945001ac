import { defineConfig } from 'drizzle-kit';

/** The team server's PostgreSQL migrations (`npm run db:generate:pg`), beside the desktop's SQLite ones. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './drizzle/pg/schema.ts',
  out: './drizzle/pg',
});
