-- GET /auth/info shows an account's second factors (an authenticator app, its recovery codes left,
-- its passkeys count): a change of them tells every process's account view, as the users table's
-- and the subscriptions table's triggers do (drizzle/0003's notify_account_changed reads user_id).
CREATE TRIGGER mfa_totp_account_changed AFTER INSERT OR UPDATE OR DELETE ON mfa_totp
  FOR EACH ROW EXECUTE FUNCTION notify_account_changed();
--> statement-breakpoint
CREATE TRIGGER mfa_recovery_codes_account_changed AFTER INSERT OR UPDATE OR DELETE ON mfa_recovery_codes
  FOR EACH ROW EXECUTE FUNCTION notify_account_changed();
--> statement-breakpoint
CREATE TRIGGER passkeys_account_changed AFTER INSERT OR UPDATE OR DELETE ON passkeys
  FOR EACH ROW EXECUTE FUNCTION notify_account_changed();
