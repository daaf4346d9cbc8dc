-- Written by hand (see 0009). How an issuer wants totals beyond DGII's tolerance treated:
-- 'strict' refuses the document (400), 'dgii' issues it with a warning, as DGII accepts it
-- conditionally (Aceptado Condicional).
ALTER TABLE `companies` ADD `totals_policy` text DEFAULT 'strict' NOT NULL;
