-- The role the service connects as in compose.yaml: `pir_app`, which owns nothing (docs/operations.md,
-- Audit trail). Run by compose's app-role service as the owner (pir), after the migration step made
-- the tables, the migrations' record and the job queue's schema; run again at every deploy, so that
-- tables a new migration adds are granted too. psql -v app_password=... sets the role's password.
\set ON_ERROR_STOP on
SELECT format('CREATE ROLE pir_app LOGIN PASSWORD %L', :'app_password')
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pir_app') \gexec
ALTER ROLE pir_app LOGIN PASSWORD :'app_password';

-- a start checks the applied migrations (drizzle's migrator first says CREATE SCHEMA IF NOT EXISTS,
-- which PostgreSQL checks against CREATE on the database even when the schema exists)
SELECT format('GRANT CONNECT, CREATE ON DATABASE %I TO pir_app', current_database()) \gexec
GRANT USAGE, CREATE ON SCHEMA drizzle TO pir_app;
GRANT SELECT ON ALL TABLES IN SCHEMA drizzle TO pir_app;

-- the service's tables: rows, never their definitions
GRANT USAGE ON SCHEMA public TO pir_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO pir_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO pir_app;
-- the audit trail is written through its functions only; SELECT stays
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON audit_events FROM pir_app;

-- the job queue (pg-boss), whose schema and queues the migration step made
GRANT USAGE ON SCHEMA pgboss TO pir_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA pgboss TO pir_app;
