CREATE TABLE `supplier_defaults` (
	`rnc_emisor` text PRIMARY KEY NOT NULL,
	`tipo_bienes_servicios` text,
	`forma_pago` text,
	`tipo_retencion_isr` text,
	`itbis_retenido_porcentaje` text,
	`retencion_renta_porcentaje` text,
	`itbis_al_costo_porcentaje` text,
	`origin` text NOT NULL,
	`updated_at` text
);
