-- Written by hand (see 0009), the SQL `drizzle-kit export` gives for worker/src/db/certification-tables.ts:
-- one DGII certification run per issuer, its state as JSON.
CREATE TABLE `certification_runs` (
	`company_id` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
