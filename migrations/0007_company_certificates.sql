CREATE TABLE `company_certificates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` text NOT NULL,
	`certificate_der` text NOT NULL,
	`certificate_serial` text,
	`certificate_not_after` text,
	`replaced_at` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `company_certificates_company` ON `company_certificates` (`company_id`,`replaced_at`);