-- A session that ends, however it ends (sign-out, recovery, a password change, an operator's UPDATE,
-- its user's deletion by cascade), is recorded in session_revocations and announced to every
-- instance in the same transaction: a rolled-back change says nothing, a committed one cannot be
-- missed for longer than one reconcile interval (SESSION_RECONCILE_S), even if its NOTIFY is lost.
CREATE FUNCTION session_revoked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO session_revocations (public_id, user_id, revoked_at)
    VALUES (OLD.public_id, OLD.user_id, clock_timestamp())
    ON CONFLICT (public_id) DO NOTHING;
  PERFORM pg_notify('session_ended', OLD.public_id::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER sessions_ended AFTER UPDATE OF ended_at ON sessions
  FOR EACH ROW WHEN (OLD.ended_at IS NULL AND NEW.ended_at IS NOT NULL) EXECUTE FUNCTION session_revoked();
--> statement-breakpoint
CREATE TRIGGER sessions_deleted AFTER DELETE ON sessions
  FOR EACH ROW WHEN (OLD.ended_at IS NULL) EXECUTE FUNCTION session_revoked();
--> statement-breakpoint
-- A deleted report (by its owner, or with its owner's account) closes its open streams on every instance.
CREATE FUNCTION notify_report_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('report_deleted', OLD.id::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER reports_deleted AFTER DELETE ON reports
  FOR EACH ROW EXECUTE FUNCTION notify_report_deleted();
