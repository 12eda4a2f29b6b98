-- Change notifications for the in-memory views (src/services/view-cache.ts): whatever writes these
-- rows (this service, another instance, a worker process, a CLI, an operator's psql), every instance
-- hears of it at commit and drops what it holds. NOTIFY is transactional: a rolled-back change says nothing.
CREATE FUNCTION notify_account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- users: what GET /auth/info shows of the account (credits, confirmation, password, Google link)
  IF TG_TABLE_NAME = 'users' THEN
    PERFORM pg_notify('account_changed', OLD.id::text);
    RETURN NULL;
  END IF;
  -- subscriptions: the one GET /auth/info shows; a row that changed owner tells both owners
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('account_changed', NEW.user_id::text);
  END IF;
  IF TG_OP <> 'INSERT' AND (TG_OP = 'DELETE' OR OLD.user_id IS DISTINCT FROM NEW.user_id) THEN
    PERFORM pg_notify('account_changed', OLD.user_id::text);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- a new user is in no view yet: updates and deletions only
CREATE TRIGGER users_account_changed AFTER UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION notify_account_changed();
--> statement-breakpoint
CREATE TRIGGER subscriptions_account_changed AFTER INSERT OR UPDATE OR DELETE ON subscriptions
  FOR EACH ROW EXECUTE FUNCTION notify_account_changed();
--> statement-breakpoint
-- A ready report's bytes never change; it can only go away (deleted, or with its owner).
CREATE FUNCTION notify_ready_report_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('report_changed', OLD.id::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER reports_ready_changed AFTER UPDATE OR DELETE ON reports
  FOR EACH ROW WHEN (OLD.status = 'ready') EXECUTE FUNCTION notify_ready_report_changed();
