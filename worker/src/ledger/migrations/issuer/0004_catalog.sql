CREATE TABLE `cashiers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`pin_iterations` integer NOT NULL,
	`pin_salt` text NOT NULL,
	`pin_hash` text NOT NULL,
	`active` integer NOT NULL,
	`version` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cashiers_version` ON `cashiers` (`version`);--> statement-breakpoint
CREATE TABLE `catalog_version` (
	`id` integer PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `products` (
	`id` text PRIMARY KEY NOT NULL,
	`code` text NOT NULL,
	`barcodes` text NOT NULL,
	`name` text NOT NULL,
	`price_cents` integer NOT NULL,
	`price_includes_itbis` integer NOT NULL,
	`itbis_rate` text NOT NULL,
	`unit` text NOT NULL,
	`kind` text NOT NULL,
	`active` integer NOT NULL,
	`version` integer NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_code` ON `products` (`code`);--> statement-breakpoint
CREATE INDEX `products_version` ON `products` (`version`);--> statement-breakpoint
CREATE INDEX `products_active_code` ON `products` (`active`,`code`);