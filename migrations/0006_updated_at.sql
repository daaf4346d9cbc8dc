DROP INDEX `receipts_status`;--> statement-breakpoint
ALTER TABLE `receipts` ADD `updated_at` text;--> statement-breakpoint
CREATE INDEX `receipts_status` ON `receipts` (`status`,`updated_at`);--> statement-breakpoint
ALTER TABLE `sequences` ADD `updated_at` text;--> statement-breakpoint
ALTER TABLE `sequences` DROP COLUMN `created_at`;