CREATE TABLE `tasks` (
	`position` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`kind` text NOT NULL,
	`ordering_key` text NOT NULL,
	`payload` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text NOT NULL,
	`deadline` text NOT NULL,
	`claimed_until` text,
	`last_result` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_id` ON `tasks` (`id`);--> statement-breakpoint
CREATE INDEX `tasks_due` ON `tasks` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `tasks_order` ON `tasks` (`ordering_key`,`position`);--> statement-breakpoint
ALTER TABLE `receipts` ADD `delivery_status` text;--> statement-breakpoint
ALTER TABLE `receipts` ADD `delivery_at` text;--> statement-breakpoint
ALTER TABLE `receipts` ADD `delivery_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `receipts` ADD `delivery_arecf_estado` text;--> statement-breakpoint
ALTER TABLE `receipts` ADD `delivery_motivo` text;--> statement-breakpoint
ALTER TABLE `receipts` ADD `delivery_detail` text;