CREATE TABLE "alert_mail" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"last_sent_at" timestamp with time zone,
	"unsubscribed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "alert_pending" (
	"profile_id" text PRIMARY KEY NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"leased_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_sequences" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"watch_id" uuid,
	"report_id" uuid NOT NULL,
	"source" text NOT NULL,
	"profile_id" text NOT NULL,
	"username" text NOT NULL,
	"month" text NOT NULL,
	"new" jsonb NOT NULL,
	"lost" jsonb NOT NULL,
	"new_red_flags" jsonb NOT NULL,
	"seq" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"read_at" timestamp with time zone,
	"mailed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "watch_profiles" (
	"watch_id" uuid NOT NULL,
	"source" text NOT NULL,
	"profile_id" text NOT NULL,
	"seen_month" integer NOT NULL,
	CONSTRAINT "watch_profiles_watch_id_source_pk" PRIMARY KEY("watch_id","source")
);
--> statement-breakpoint
CREATE TABLE "watches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"report_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "watches_report_id_unique" UNIQUE("report_id")
);
--> statement-breakpoint
ALTER TABLE "alert_mail" ADD CONSTRAINT "alert_mail_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_sequences" ADD CONSTRAINT "alert_sequences_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_watch_id_watches_id_fk" FOREIGN KEY ("watch_id") REFERENCES "public"."watches"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watch_profiles" ADD CONSTRAINT "watch_profiles_watch_id_watches_id_fk" FOREIGN KEY ("watch_id") REFERENCES "public"."watches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watches" ADD CONSTRAINT "watches_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watches" ADD CONSTRAINT "watches_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_pending_leased_idx" ON "alert_pending" USING btree ("leased_until");--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_watch_source_month_idx" ON "alerts" USING btree ("watch_id","source","month");--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_user_seq_idx" ON "alerts" USING btree ("user_id","seq");--> statement-breakpoint
CREATE INDEX "alerts_report_idx" ON "alerts" USING btree ("report_id");--> statement-breakpoint
CREATE INDEX "alerts_unread_idx" ON "alerts" USING btree ("user_id") WHERE "alerts"."read_at" is null;--> statement-breakpoint
CREATE INDEX "watch_profiles_profile_idx" ON "watch_profiles" USING btree ("profile_id");--> statement-breakpoint
CREATE INDEX "watches_user_created_idx" ON "watches" USING btree ("user_id","created_at");