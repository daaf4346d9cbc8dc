CREATE TABLE `voided_ranges` (
	`tipo_ecf` text NOT NULL,
	`first_number` integer NOT NULL,
	`last_number` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`tipo_ecf`, `first_number`, `last_number`)
);
