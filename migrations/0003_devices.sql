CREATE TABLE `device_leases` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`device_id` text NOT NULL,
	`company_id` text NOT NULL,
	`tipo_ecf` text NOT NULL,
	`range_from` integer NOT NULL,
	`range_to` integer NOT NULL,
	`expires_on` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `device_leases_device_tipo` ON `device_leases` (`device_id`,`tipo_ecf`,`range_from`);--> statement-breakpoint
CREATE TABLE `device_uploads` (
	`company_id` text NOT NULL,
	`encf` text NOT NULL,
	`device_id` text NOT NULL,
	`xml_sha256` text NOT NULL,
	`answer` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`company_id`, `encf`),
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `devices` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`name` text NOT NULL,
	`pairing_code_hash` text,
	`pairing_expires_at` text,
	`token_hash` text,
	`paired_at` text,
	`revoked_at` text,
	`last_seen_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `devices_pairing_code_hash` ON `devices` (`pairing_code_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `devices_token_hash` ON `devices` (`token_hash`);--> statement-breakpoint
CREATE INDEX `devices_company` ON `devices` (`company_id`);