-- Written by hand: drizzle-kit generate would also drop the ledger tables of API 1.7, which stay
-- until every deployment ran `ledger:migrate` (see worker/src/db/schema.ts). Same SQL as generated.
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_type` text NOT NULL,
	`owner_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`secret_sealed` text NOT NULL,
	`disabled_at` text,
	`disabled_reason` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_owner` ON `webhook_endpoints` (`owner_type`,`owner_id`);
