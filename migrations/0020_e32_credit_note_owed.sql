-- Written by hand (see 0009): what became of the E34 voiding an E32 exchanged through a request
-- (worker/src/db/credito-fiscal-tables.ts): owed (the month object's task retries it), issued
-- (its e-NCF), or failed (given up: the issuer issues it by hand).
ALTER TABLE `credito_fiscal_requests` ADD `credit_note` text;
--> statement-breakpoint
ALTER TABLE `credito_fiscal_requests` ADD `e34` text;
