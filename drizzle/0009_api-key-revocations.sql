-- A live API key that is revoked or deleted (by its owner, an operator's UPDATE, its user's deletion
-- by cascade) is recorded in session_revocations and announced on session_ended in the same
-- transaction, as an ended session is (drizzle/0005): every instance drops it from its in-memory
-- view within milliseconds, or within SESSION_RECONCILE_S if the NOTIFY is lost. Key ids and session
-- public ids are both random UUIDs and share the table.
CREATE FUNCTION api_key_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO session_revocations (public_id, user_id, revoked_at)
    VALUES (OLD.id, OLD.user_id, clock_timestamp())
    ON CONFLICT (public_id) DO NOTHING;
  PERFORM pg_notify('session_ended', OLD.id::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER api_keys_revoked AFTER UPDATE OF revoked_at ON api_keys
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL) EXECUTE FUNCTION api_key_revoked();
--> statement-breakpoint
CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
  FOR EACH ROW WHEN (OLD.revoked_at IS NULL) EXECUTE FUNCTION api_key_revoked();
