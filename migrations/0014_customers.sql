-- Written by hand (see 0009), the SQL `drizzle-kit export` gives for worker/src/customers/table.ts:
-- each company's buyers, filled from the receipts it issued and edited in the console.
CREATE TABLE `customers` (
	`company_id` text NOT NULL,
	`rnc` text NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`electronic_receiver` integer,
	`checked_at` text,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`company_id`, `rnc`),
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
