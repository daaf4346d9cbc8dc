// e-CF types never exchanged between taxpayers (descripcion-tecnica, emisor-receptor): we neither
// deliver them to a buyer nor accept them from a supplier.
export const NOT_EXCHANGED: ReadonlySet<string> = new Set(["32", "41", "43", "46", "47"]);
