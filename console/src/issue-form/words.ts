// A problem as an owner reads it: the shared validation's Spanish message (messageEs) with DGII's
// element names put into the words the form's labels use, and no JSON path left in it.

/** The element names the issue form fills, as its labels say them. */
const WORDS: Record<string, string> = {
  RNCComprador: "el RNC o la cédula del comprador",
  RazonSocialComprador: "el nombre o la razón social del comprador",
  CorreoComprador: "el correo del comprador",
  IdentificadorExtranjero: "el documento del comprador extranjero",
  NombreItem: "la descripción",
  CantidadItem: "la cantidad",
  PrecioUnitarioItem: "el precio",
  MontoItem: "el monto de la línea",
  DescuentoMonto: "el descuento",
  TablaSubDescuento: "el descuento",
  MontoSubDescuento: "el descuento",
  RecargoMonto: "el recargo",
  TablaSubRecargo: "el recargo",
  MontoSubRecargo: "el recargo",
  IndicadorFacturacion: "el ITBIS de la línea",
  IndicadorBienoServicio: "si es bien o servicio",
  TipoPago: "la condición de pago",
  FechaLimitePago: "la fecha límite de pago",
  TerminoPago: "el plazo",
  TablaFormasPago: "las formas de pago",
  FormaPago: "la forma de pago",
  MontoPago: "el monto de la forma de pago",
  CodigoModificacion: "el código de modificación",
  NCFModificado: "el comprobante que se modifica",
  MontoTotal: "el total",
  TotalITBIS: "el ITBIS",
  PaisComprador: "el país del comprador",
  FechaEmbarque: "la fecha de embarque",
  NumeroEmbarque: "el número de embarque",
  NombrePuertoEmbarque: "el puerto de embarque",
  NombrePuertoDesembarque: "el puerto de desembarque",
  NombrePuertoSalida: "el puerto de salida",
  CondicionesEntrega: "las condiciones de entrega",
  RegimenAduanero: "el régimen aduanero",
  TotalFob: "el valor FOB",
  OtrosGastos: "los otros gastos",
  TotalCif: "el valor CIF",
  ViaTransporte: "la vía de transporte",
  PaisOrigen: "el país de origen",
  PaisDestino: "el país de destino",
  NombreCompaniaTransportista: "la compañía transportista",
  NumeroViaje: "el número de viaje",
  MontoISRRetenido: "la retención de ISR",
};

/** DGII's containers, one capitalised word each (CamelCase names are found by ELEMENT). */
const CONTAINERS: Record<string, string> = {
  Comprador: "el comprador",
  Encabezado: "el comprobante",
  Totales: "los totales",
  Item: "la línea",
};
const CONTAINER = new RegExp(`\\b(${Object.keys(CONTAINERS).join("|")})\\b`, "g");

/** A word that is a DGII element name (CamelCase, as the XSD spells them). */
const ELEMENT = /\b[A-Z][a-z]+(?:[A-Z0-9][A-Za-z0-9]*)+\b|\b[A-Z]{3,}[a-z][A-Za-z0-9]*\b/g;
/** A JSON pointer into the document ("/Encabezado/Comprador/RNCComprador"). */
const POINTER = /\s*\/[A-Za-z]+(?:\/[A-Za-z0-9]+)+:?\s*/g;

/** messageEs with every element name in words (an unknown one as "un dato") and no path. */
export function inWords(messageEs: string): string {
  const said = messageEs
    .replace(POINTER, " ")
    .replace(ELEMENT, (name) => WORDS[name] ?? "un dato del comprobante")
    .replace(CONTAINER, (name) => CONTAINERS[name] ?? name)
    .trim();
  return said.charAt(0).toUpperCase() + said.slice(1);
}
