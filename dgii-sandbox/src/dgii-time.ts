// Date formats DGII uses on the wire that only the sandbox writes. Santo Domingo time itself
// (the offset, dd-MM-yyyy, dd-MM-yyyy HH:mm:ss) comes from @ecf/shared's dgii-time.
import { formatXsDateTime } from "@ecf/shared";

/** `yyyy-MM-ddTHH:mm:ssZ`, the "universal sortable" format of the token's expira/expedido. */
export function universal(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Local Santo Domingo time with offset and DGII's seven fraction digits, as in the seed's `fecha`: 2019-03-13T14:33:32.8617792-04:00. */
export function santoDomingoIso(date: Date): string {
  return formatXsDateTime(date).replace(/(\.\d{3})(-04:00)$/, "$10000$2");
}
