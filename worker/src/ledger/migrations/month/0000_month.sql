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
CREATE INDEX `audit_log_created` ON `audit_log` (`created_at`);--> statement-breakpoint
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
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `purchases_emisor_encf` ON `purchases` (`rnc_emisor`,`encf`);--> statement-breakpoint
CREATE INDEX `purchases_date` ON `purchases` (`issue_date`,`id`);--> statement-breakpoint
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
	`retries` integer DEFAULT 0 NOT NULL,
	`claimed_until` text,
	`next_attempt_at` text,
	`source` text DEFAULT 'api' NOT NULL,
	`ncf_modificado` text,
	`codigo_modificacion` text,
	`approval_status` text,
	`approval_reason` text,
	`approval_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `receipts_encf` ON `receipts` (`encf`);--> statement-breakpoint
CREATE INDEX `receipts_date` ON `receipts` (`issue_date`,`encf`);--> statement-breakpoint
CREATE INDEX `receipts_due` ON `receipts` (`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `receipts_modified` ON `receipts` (`ncf_modificado`);