CREATE TABLE `receipt_day_counts` (
	`issue_date` text NOT NULL,
	`tipo_ecf` text NOT NULL,
	`receipts` integer NOT NULL,
	PRIMARY KEY(`issue_date`, `tipo_ecf`)
);
--> statement-breakpoint
CREATE INDEX `receipts_buyer_date` ON `receipts` (`rnc_comprador`,`issue_date`,`encf`);--> statement-breakpoint
CREATE INDEX `receipts_type_date` ON `receipts` (`tipo_ecf`,`issue_date`,`encf`);--> statement-breakpoint
INSERT INTO `receipt_day_counts` (`issue_date`, `tipo_ecf`, `receipts`)
  SELECT `issue_date`, `tipo_ecf`, COUNT(*) FROM `receipts` GROUP BY `issue_date`, `tipo_ecf`;--> statement-breakpoint
CREATE TRIGGER `receipt_day_counts_insert` AFTER INSERT ON `receipts` BEGIN
  INSERT INTO `receipt_day_counts` (`issue_date`, `tipo_ecf`, `receipts`) VALUES (NEW.`issue_date`, NEW.`tipo_ecf`, 1)
    ON CONFLICT (`issue_date`, `tipo_ecf`) DO UPDATE SET `receipts` = `receipts` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `receipt_day_counts_delete` AFTER DELETE ON `receipts` BEGIN
  UPDATE `receipt_day_counts` SET `receipts` = `receipts` - 1
    WHERE `issue_date` = OLD.`issue_date` AND `tipo_ecf` = OLD.`tipo_ecf`;
END;--> statement-breakpoint
CREATE TRIGGER `receipt_day_counts_update` AFTER UPDATE OF `issue_date`, `tipo_ecf` ON `receipts` BEGIN
  UPDATE `receipt_day_counts` SET `receipts` = `receipts` - 1
    WHERE `issue_date` = OLD.`issue_date` AND `tipo_ecf` = OLD.`tipo_ecf`;
  INSERT INTO `receipt_day_counts` (`issue_date`, `tipo_ecf`, `receipts`) VALUES (NEW.`issue_date`, NEW.`tipo_ecf`, 1)
    ON CONFLICT (`issue_date`, `tipo_ecf`) DO UPDATE SET `receipts` = `receipts` + 1;
END;
