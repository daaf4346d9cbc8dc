CREATE TABLE `purchases` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`rnc_emisor` text NOT NULL,
	`razon_social_emisor` text,
	`encf` text NOT NULL,
	`tipo_ecf` text NOT NULL,
	`issue_date` text NOT NULL,
	`monto_total` text NOT NULL,
	`total_itbis` text,
	`xml_key` text NOT NULL,
	`xml_sha256` text NOT NULL,
	`arecf_key` text NOT NULL,
	`arecf_estado` text NOT NULL,
	`fecha_hora_acuse_recibo` text NOT NULL,
	`approval_status` text,
	`approval_reason` text,
	`approval_key` text,
	`approved_at` text,
	`approval_supplier_outcome` text,
	`approval_supplier_detail` text,
	`approval_dgii_outcome` text,
	`approval_dgii_detail` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `purchases_company_emisor_encf` ON `purchases` (`company_id`,`rnc_emisor`,`encf`);--> statement-breakpoint
CREATE INDEX `purchases_company_date` ON `purchases` (`company_id`,`issue_date`,`id`);--> statement-breakpoint
CREATE TABLE `receiver_seeds` (
	`valor` text PRIMARY KEY NOT NULL,
	`company_id` text,
	`expires_at` text NOT NULL,
	`used_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `receiver_seeds_expires` ON `receiver_seeds` (`expires_at`);--> statement-breakpoint
CREATE TABLE `receiver_settings` (
	`company_id` text PRIMARY KEY NOT NULL,
	`require_authentication` integer DEFAULT false NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `receiver_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`company_id` text,
	`holder` text NOT NULL,
	`expires_at` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `receiver_tokens_expires` ON `receiver_tokens` (`expires_at`);