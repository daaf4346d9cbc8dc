// Counts a request's storage round trips (D1 statements and batches, ledger RPCs, R2 calls) by
// wrapping its bindings, so the issuing bench can print them per receipt (counted, not timed).
// The count leaves in the Server-Timing header: `rt-d1;desc=2, rt-ledger;desc=5, rt-r2;desc=1`.
// Methods are called with Reflect.apply: an RPC stub's method is itself a stub, on which
// `.apply` or `.bind` would be remote calls.

export interface RoundTrips {
  d1: number;
  ledger: number;
  r2: number;
}

/** Wraps every function property of `target` so that calling it counts one round trip. */
function counting<T extends object>(target: T, count: () => void): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        count();
        return Reflect.apply(value as (...a: unknown[]) => unknown, object, args);
      };
    },
  });
}

const D1_CALLS = new Set(["first", "all", "run", "raw"]);

/** A D1 statement proxy: bind() keeps counting; first/all/run/raw are one round trip each. */
function countingStatement(statement: D1PreparedStatement, trips: RoundTrips): D1PreparedStatement {
  return new Proxy(statement, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const result = Reflect.apply(value as (...a: unknown[]) => unknown, object, args);
        if (property === "bind") return countingStatement(result as D1PreparedStatement, trips);
        if (D1_CALLS.has(String(property))) trips.d1++;
        return result;
      };
    },
  });
}

export function countingEnv(env: Env, trips: RoundTrips): Env {
  const db = new Proxy(env.DB, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (property === "prepare") return (query: string) => countingStatement(object.prepare(query), trips);
      if (property === "batch" || property === "exec") {
        return (...args: unknown[]) => {
          trips.d1++;
          return Reflect.apply(value as (...a: unknown[]) => unknown, object, args);
        };
      }
      return typeof value === "function"
        ? (...args: unknown[]) => Reflect.apply(value as (...a: unknown[]) => unknown, object, args)
        : value;
    },
  });
  const namespace = <T extends Rpc.DurableObjectBranded | undefined>(
    ns: DurableObjectNamespace<T>,
  ): DurableObjectNamespace<T> =>
    new Proxy(ns, {
      get(object, property) {
        const value = Reflect.get(object, property, object) as unknown;
        if (property === "get")
          return (...args: unknown[]) =>
            counting(Reflect.apply(value as (...a: unknown[]) => object, object, args), () => trips.ledger++);
        return typeof value === "function"
          ? (...args: unknown[]) => Reflect.apply(value as (...a: unknown[]) => unknown, object, args)
          : value;
      },
    });
  return {
    ...env,
    DB: db,
    ARCHIVE: counting(env.ARCHIVE, () => trips.r2++),
    ISSUER_LEDGER: namespace(env.ISSUER_LEDGER),
    RECEIPT_MONTH: namespace(env.RECEIPT_MONTH),
  };
}

export function roundTripsHeader(trips: RoundTrips): string {
  return `rt-d1;desc=${trips.d1}, rt-ledger;desc=${trips.ledger}, rt-r2;desc=${trips.r2}`;
}
