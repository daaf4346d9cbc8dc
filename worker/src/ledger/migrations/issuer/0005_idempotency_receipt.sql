ALTER TABLE `idempotency_keys` ADD `encf` text;--> statement-breakpoint
ALTER TABLE `idempotency_keys` ADD `month` text;--> statement-breakpoint
ALTER TABLE `idempotency_keys` ADD `warnings` text;