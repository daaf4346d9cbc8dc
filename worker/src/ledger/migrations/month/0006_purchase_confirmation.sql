ALTER TABLE `purchases` ADD `dgii_status` text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE `purchases` ADD `security_code` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `dgii_checks` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `purchases` ADD `dgii_next_check_at` text DEFAULT '1970-01-01T00:00:00.000Z';--> statement-breakpoint
ALTER TABLE `purchases` ADD `dgii_checked_at` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `dgii_override_reason` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `dgii_override_by` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `dgii_override_at` text;--> statement-breakpoint
CREATE INDEX `purchases_dgii_check` ON `purchases` (`dgii_next_check_at`) WHERE "purchases"."dgii_next_check_at" IS NOT NULL;