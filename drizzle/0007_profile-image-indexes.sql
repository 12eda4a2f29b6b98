CREATE INDEX "accounts_image_idx" ON "accounts" USING hash ("image");--> statement-breakpoint
CREATE INDEX "profiles_image_idx" ON "profiles" USING hash ("image");