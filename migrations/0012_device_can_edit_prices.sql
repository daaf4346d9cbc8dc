-- Written by hand (see 0009). Whether a paired till may change a product's price at the counter;
-- off until the issuer allows it (PATCH /devices/{id}).
ALTER TABLE `devices` ADD `can_edit_prices` integer DEFAULT false NOT NULL;
