CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`key_hash` text NOT NULL,
	`secret_hash` text NOT NULL,
	`owner_type` text NOT NULL,
	`owner_id` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`last_used_at` text,
	`revoked_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` text,
	`actor` text,
	`action` text NOT NULL,
	`code` text NOT NULL,
	`status` integer NOT NULL,
	`detail` text,
	`request_id` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_company_created` ON `audit_log` (`company_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `companies` (
	`id` text PRIMARY KEY NOT NULL,
	`legal_name` text NOT NULL,
	`rnc` text NOT NULL,
	`trade_name` text,
	`address` text,
	`province` text,
	`municipality` text,
	`is_active` integer DEFAULT true NOT NULL,
	`dgii_environment` text DEFAULT 'testecf' NOT NULL,
	`invoice_limit_per_month` integer DEFAULT 1000 NOT NULL,
	`certificate_file_name` text,
	`certificate_key_encrypted` text,
	`certificate_der` text,
	`certificate_subject` text,
	`certificate_serial` text,
	`certificate_not_after` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `companies_rnc_unique` ON `companies` (`rnc`);--> statement-breakpoint
CREATE TABLE `partner_companies` (
	`partner_id` text NOT NULL,
	`company_id` text NOT NULL,
	PRIMARY KEY(`partner_id`, `company_id`),
	FOREIGN KEY (`partner_id`) REFERENCES `partners`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `partners` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sequences` (
	`company_id` text NOT NULL,
	`tipo_ecf` text NOT NULL,
	`range_from` integer NOT NULL,
	`range_to` integer NOT NULL,
	`next_number` integer NOT NULL,
	`expires_on` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`company_id`, `tipo_ecf`),
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `usage_counters` (
	`company_id` text NOT NULL,
	`month` text NOT NULL,
	`invoices` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`company_id`, `month`),
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
