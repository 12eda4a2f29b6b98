CREATE TABLE "report_deletions" (
	"report_id" uuid PRIMARY KEY NOT NULL,
	"deleted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"txid" "xid8" DEFAULT pg_current_xact_id() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "session_revocations" ADD COLUMN "txid" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
CREATE INDEX "report_deletions_deleted_idx" ON "report_deletions" USING btree ("deleted_at");--> statement-breakpoint
CREATE INDEX "report_deletions_txid_idx" ON "report_deletions" USING btree ("txid");--> statement-breakpoint
CREATE INDEX "session_revocations_txid_idx" ON "session_revocations" USING btree ("txid");