-- Written by hand (see 0009): DGII's taxpayer registry, imported whole by the administrator.
-- Every import is a generation: its rows carry the generation's number, and the one row of
-- `taxpayer_registry` names the generation readers see. Committing an import rewrites that row
-- (one statement), so a reader sees the whole previous registry or the whole new one, never a
-- mix; rows of a generation nobody names (replaced, or an import never committed) are deleted
-- afterwards in chunks.
CREATE TABLE `taxpayer_imports` (
	`generation` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`state` text NOT NULL,
	`source` text,
	`started_at` text NOT NULL,
	`last_activity_at` text NOT NULL,
	`committed_at` text,
	`row_count` integer
);
--> statement-breakpoint
CREATE INDEX `taxpayer_imports_state` ON `taxpayer_imports` (`state`);
--> statement-breakpoint
CREATE TABLE `taxpayer_registry` (
	`id` integer PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL,
	`row_count` integer NOT NULL,
	`imported_at` text NOT NULL,
	CONSTRAINT "taxpayer_registry_single_row" CHECK("taxpayer_registry"."id" = 1)
);
--> statement-breakpoint
-- WITHOUT ROWID: the rows live in the primary key's own B-tree (one tree to write per row, one
-- to read per lookup); drizzle's schema does not express it, which changes nothing for queries.
CREATE TABLE `taxpayers` (
	`generation` integer NOT NULL,
	`rnc` text NOT NULL,
	`legal_name` text NOT NULL,
	`trade_name` text,
	`activity` text,
	`status` text NOT NULL,
	`payment_regime` text,
	`registered_on` text,
	PRIMARY KEY(`generation`, `rnc`)
) WITHOUT ROWID;
