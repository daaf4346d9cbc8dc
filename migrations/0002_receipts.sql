CREATE TABLE `idempotency_keys` (
	`company_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer,
	`response` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`company_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `receipts` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`encf` text NOT NULL,
	`tipo_ecf` text NOT NULL,
	`issue_date` text NOT NULL,
	`rnc_comprador` text,
	`razon_social_comprador` text,
	`monto_total` text NOT NULL,
	`total_itbis` text,
	`security_code` text NOT NULL,
	`fecha_hora_firma` text NOT NULL,
	`timbre_url` text NOT NULL,
	`xml_key` text NOT NULL,
	`xml_sha256` text NOT NULL,
	`document_hash` text NOT NULL,
	`dgii_path` text NOT NULL,
	`status` text NOT NULL,
	`track_id` text,
	`dgii_codigo` text,
	`dgii_mensajes` text,
	`send_attempts` integer DEFAULT 0 NOT NULL,
	`source` text DEFAULT 'api' NOT NULL,
	`ncf_modificado` text,
	`codigo_modificacion` text,
	`approval_status` text,
	`approval_reason` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `receipts_company_encf` ON `receipts` (`company_id`,`encf`);--> statement-breakpoint
CREATE INDEX `receipts_company_date` ON `receipts` (`company_id`,`issue_date`,`encf`);--> statement-breakpoint
CREATE INDEX `receipts_status` ON `receipts` (`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `receipts_modified` ON `receipts` (`company_id`,`ncf_modificado`);