-- Written by hand (see 0009). Who holds the signing key: a till created by a manager receives the
-- issuer's key only after an owner approved it; the key travels wrapped to the public key the
-- till generated at pairing, and each handover is recorded. A till's given-up numbers wait as
-- proposals until an owner or accountant confirms them; companies cap what one till may lease.
ALTER TABLE `devices` ADD `created_by` text;
ALTER TABLE `devices` ADD `key_approval` text DEFAULT 'not_needed' NOT NULL;
ALTER TABLE `devices` ADD `approved_by` text;
ALTER TABLE `devices` ADD `approved_at` text;
ALTER TABLE `devices` ADD `till_public_key` text;
ALTER TABLE `devices` ADD `key_handed_over_at` text;
-- What one till may lease: a share of the numbers left in a range per lease, and a number of
-- leases per type a day, so the API always keeps numbers to issue.
ALTER TABLE `companies` ADD `device_lease_share_percent` integer DEFAULT 25 NOT NULL;
ALTER TABLE `companies` ADD `device_leases_per_day` integer DEFAULT 20 NOT NULL;
-- Numbers a till gave up, waiting for an owner or accountant to confirm them before any ANECF.
CREATE TABLE `given_up_proposals` (
  `id` text PRIMARY KEY NOT NULL,
  `company_id` text NOT NULL REFERENCES `companies`(`id`),
  `device_id` text NOT NULL,
  `tipo_ecf` text NOT NULL,
  `encf` text NOT NULL,
  `status` text DEFAULT 'proposed' NOT NULL,
  `proposed_at` text NOT NULL,
  `decided_by` text,
  `decided_at` text,
  `outcome` text
);
CREATE UNIQUE INDEX `given_up_proposals_encf` ON `given_up_proposals` (`company_id`, `encf`);
-- The one-time code e-mailed to a console user whose sign-ins from an address were throttled: the
-- right password alone no longer signs in from there, the password and this code do.
CREATE TABLE `console_login_codes` (
  `user_id` text PRIMARY KEY NOT NULL REFERENCES `console_users`(`id`),
  `code_hash` text NOT NULL,
  `expires_at` text NOT NULL,
  `attempts` integer DEFAULT 0 NOT NULL
);
