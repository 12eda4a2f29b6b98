-- Revocations that every instance reads by transaction, not by time (docs/decisions.md, Revocation
-- cursor): session_revocations.txid and report_deletions.txid default to the writing transaction's
-- id, which a reader compares with the snapshot of its previous read.
--
-- A live session whose expires_at is moved to the statement's clock or before it is ended then, as
-- one whose ended_at is set: recorded and announced by session_revoked() (drizzle/0005). Rolling a
-- session on never moves its expiry back, so only a deliberate change (an operator's UPDATE) does this.
CREATE TRIGGER sessions_expired_early AFTER UPDATE OF expires_at ON sessions
  FOR EACH ROW WHEN (OLD.ended_at IS NULL AND NEW.ended_at IS NULL AND NEW.expires_at < OLD.expires_at AND NEW.expires_at <= clock_timestamp())
  EXECUTE FUNCTION session_revoked();
--> statement-breakpoint
-- A deleted report (by its owner, or with its owner's account) is recorded in report_deletions and
-- announced in the same transaction: its open streams end on every instance within milliseconds, or
-- within SESSION_RECONCILE_S if the NOTIFY is lost.
CREATE OR REPLACE FUNCTION notify_report_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO report_deletions (report_id) VALUES (OLD.id) ON CONFLICT (report_id) DO NOTHING;
  PERFORM pg_notify('report_deleted', OLD.id::text);
  RETURN NULL;
END $$;
