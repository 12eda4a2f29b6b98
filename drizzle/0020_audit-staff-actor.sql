-- Staff actions are audited with the staff member (actor_id) and what they gave (details: the reason,
-- the proof of identity, the delta), through one more form of audit_record, owned like the first by
-- the insert-only role pir_audit_writer where the migrating role may hand it over (see 0013).
CREATE FUNCTION audit_record(p_kind text, p_user_id uuid, p_ip text, p_user_agent text, p_email_hash text, p_actor_id uuid, p_details jsonb) RETURNS void
  LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
  INSERT INTO audit_events (kind, user_id, ip, user_agent, email_hash, actor_id, details)
  VALUES (p_kind, p_user_id, p_ip, p_user_agent, p_email_hash, p_actor_id, p_details)
$$;
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pir_audit_writer') THEN
    BEGIN
      ALTER FUNCTION audit_record(text, uuid, text, text, text, uuid, jsonb) OWNER TO pir_audit_writer;
    EXCEPTION
      WHEN insufficient_privilege THEN RAISE NOTICE 'audit_record stays owned by the migrating role: it may not hand it to pir_audit_writer';
    END;
  END IF;
END $$;
