-- The audit trail is written through three functions, never by statements of the service's own
-- (docs/operations.md, Audit trail; docs/decisions.md, Audit trail):
--   audit_record      inserts one row, as the NOLOGIN role pir_audit_writer, which may only INSERT
--                     into audit_events (and take ids from its sequence)
--   audit_forget_user clears the IP address and User-Agent of one user's rows (account deletion)
--   audit_prune       deletes rows older than a moment at least 30 days ago (retention)
-- An application role that is not the table's owner is granted SELECT on audit_events and nothing
-- else there: it can add rows, blank the two columns of a deleted account and drop old rows, and can
-- neither change nor delete a recent row. Where the migrating role may not create roles (or the
-- role cannot be handed the function), audit_record stays owned by the migrating role: the same
-- function, without the narrower role.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pir_audit_writer') THEN
    BEGIN
      CREATE ROLE pir_audit_writer NOLOGIN;
    EXCEPTION
      WHEN insufficient_privilege THEN RAISE NOTICE 'pir_audit_writer not created: this role may not create roles';
      -- another database of the same server created it meanwhile (roles are server-wide)
      WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
END $$;
--> statement-breakpoint
CREATE FUNCTION audit_record(p_kind text, p_user_id uuid, p_ip text, p_user_agent text, p_email_hash text) RETURNS void
  LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  INSERT INTO audit_events (kind, user_id, ip, user_agent, email_hash) VALUES (p_kind, p_user_id, p_ip, p_user_agent, p_email_hash)
$$;
--> statement-breakpoint
CREATE FUNCTION audit_forget_user(p_user_id uuid) RETURNS void
  LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  UPDATE audit_events SET ip = NULL, user_agent = NULL WHERE user_id = p_user_id AND (ip IS NOT NULL OR user_agent IS NOT NULL)
$$;
--> statement-breakpoint
CREATE FUNCTION audit_prune(p_before timestamptz) RETURNS bigint
  LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  WITH gone AS (
    DELETE FROM audit_events WHERE created_at < least(p_before, now() - interval '30 days') RETURNING 1
  ) SELECT count(*) FROM gone
$$;
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pir_audit_writer') THEN
    BEGIN
      GRANT INSERT ON audit_events TO pir_audit_writer;
      GRANT USAGE ON SEQUENCE audit_events_id_seq TO pir_audit_writer;
      ALTER FUNCTION audit_record(text, uuid, text, text, text) OWNER TO pir_audit_writer;
    EXCEPTION
      WHEN insufficient_privilege THEN RAISE NOTICE 'audit_record stays owned by the migrating role: it may not hand it to pir_audit_writer';
    END;
  END IF;
END $$;
