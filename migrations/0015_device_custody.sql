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
