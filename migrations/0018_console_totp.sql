-- Written by hand (see 0009), the SQL `drizzle-kit export` gives for worker/src/db/console-tables.ts:
-- a console user's authenticator-app secret (TOTP), sealed, pending until confirmed with a code.
CREATE TABLE `console_totp` (
	`user_id` text PRIMARY KEY NOT NULL,
	`secret_sealed` text NOT NULL,
	`confirmed_at` text,
	`last_step` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `console_users`(`id`) ON UPDATE no action ON DELETE no action
);
