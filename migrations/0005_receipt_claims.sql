ALTER TABLE `receipts` ADD `claimed_until` text;--> statement-breakpoint
ALTER TABLE `receipts` ADD `next_attempt_at` text;