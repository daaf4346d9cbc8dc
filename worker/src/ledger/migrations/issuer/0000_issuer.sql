CREATE TABLE `device_leases` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`device_id` text NOT NULL,
	`tipo_ecf` text NOT NULL,
	`range_from` integer NOT NULL,
	`range_to` integer NOT NULL,
	`expires_on` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `device_leases_device_tipo` ON `device_leases` (`device_id`,`tipo_ecf`,`range_from`);--> statement-breakpoint
CREATE INDEX `device_leases_tipo` ON `device_leases` (`tipo_ecf`,`range_from`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`key` text PRIMARY KEY NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer,
	`response` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `ledger_months` (
	`month` text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE `purchase_index` (
	`rnc_emisor` text NOT NULL,
	`encf` text NOT NULL,
	`month` text NOT NULL,
	PRIMARY KEY(`rnc_emisor`, `encf`)
);
--> statement-breakpoint
CREATE TABLE `receipt_index` (
	`tipo_ecf` text NOT NULL,
	`first_number` integer NOT NULL,
	`last_number` integer NOT NULL,
	`month` text NOT NULL,
	PRIMARY KEY(`tipo_ecf`, `first_number`)
);
--> statement-breakpoint
CREATE INDEX `receipt_index_last` ON `receipt_index` (`tipo_ecf`,`last_number`);--> statement-breakpoint
CREATE TABLE `sequences` (
	`tipo_ecf` text PRIMARY KEY NOT NULL,
	`range_from` integer NOT NULL,
	`range_to` integer NOT NULL,
	`next_number` integer NOT NULL,
	`expires_on` text NOT NULL,
	`updated_at` text
);
--> statement-breakpoint
CREATE TABLE `usage_counters` (
	`month` text PRIMARY KEY NOT NULL,
	`invoices` integer DEFAULT 0 NOT NULL
);
