CREATE TABLE `shifts` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`device_id` text NOT NULL,
	`cashier_id` text NOT NULL,
	`cashier_name` text NOT NULL,
	`business_day` text NOT NULL,
	`opened_at` text NOT NULL,
	`closed_at` text,
	`opening_float` text NOT NULL,
	`counted_cash` text,
	`expected_cash` text,
	`cash_difference` text,
	`sales_total` text,
	`itbis_total` text,
	`refunds_total` text,
	`receipt_count` integer,
	`report` text,
	`payload` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text
);
--> statement-breakpoint
CREATE INDEX `shifts_day` ON `shifts` (`business_day`,`device_id`,`opened_at`,`id`);