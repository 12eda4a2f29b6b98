ALTER TABLE "reports" ADD COLUMN "job_id" uuid;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "details" jsonb;