ALTER TABLE `purchases` ADD `figures` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `tipo_bienes_servicios` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `fecha_pago` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `forma_pago` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `tipo_retencion_isr` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `itbis_retenido` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `monto_retencion_renta` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `itbis_al_costo` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `itbis_proporcionalidad` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `classified_at` text;--> statement-breakpoint
ALTER TABLE `receipts` ADD `figures` text;--> statement-breakpoint
ALTER TABLE `receipts` ADD `fecha_retencion` text;--> statement-breakpoint
ALTER TABLE `receipts` ADD `itbis_retenido_terceros` text;--> statement-breakpoint
ALTER TABLE `receipts` ADD `retencion_renta_terceros` text;