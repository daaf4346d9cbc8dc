-- Written by hand (see 0009), the SQL `drizzle-kit export` gives for the issuer's two crédito
-- fiscal settings (worker/src/db/tables.ts) and worker/src/db/credito-fiscal-tables.ts: a buyer's
-- request for an E31, kept while it waits for an owner's or accountant's decision.
ALTER TABLE `companies` ADD `credito_fiscal_approval` text DEFAULT 'at_once' NOT NULL;
--> statement-breakpoint
ALTER TABLE `companies` ADD `credito_fiscal_e32` text DEFAULT 'none' NOT NULL;
--> statement-breakpoint
CREATE TABLE `credito_fiscal_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`company_id` text NOT NULL,
	`e32` text NOT NULL,
	`rnc_comprador` text NOT NULL,
	`email` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`reason` text,
	`e31` text,
	`decided_by` text,
	`decided_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `credito_fiscal_requests_open` ON `credito_fiscal_requests` (`company_id`,`e32`) WHERE `status` <> 'declined';
--> statement-breakpoint
CREATE INDEX `credito_fiscal_requests_status` ON `credito_fiscal_requests` (`company_id`,`status`,`created_at`);
