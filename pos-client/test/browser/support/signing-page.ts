// Page entry bundled for Chromium: imports a PKCS#8 key as a non-extractable CryptoKey, keeps it
// in IndexedDB (CryptoKeys are structured-cloneable), reads it back and signs with it, as the POS
// does offline.
import { importSigningKey, signEcfXml, verifyXml } from "@ecf/shared/signing/index";

const DB = "ecf-signing-test";

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore("keys");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function put(db: IDBDatabase, id: string, value: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const tx = db.transaction("keys", "readwrite");
    tx.objectStore("keys").put(value, id);
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
}

function get<T>(db: IDBDatabase, id: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = db.transaction("keys").objectStore("keys").get(id);
    request.onsuccess = () => resolve(request.result as T);
    request.onerror = () => reject(request.error);
  });
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

export interface PageResult {
  signed: string;
  storedKey: { type: string; extractable: boolean; usages: string[]; algorithm: string };
  exportRefused: boolean;
  verifiedInPage: boolean;
  userAgent: string;
}

async function signInPage(pkcs8Base64: string, certificateBase64: string, xml: string): Promise<PageResult> {
  const db = await openDb();
  await put(db, "signing", await importSigningKey(fromBase64(pkcs8Base64)));
  db.close();

  // A fresh connection, as after a reload: the key comes back from storage.
  const again = await openDb();
  const key = await get<CryptoKey>(again, "signing");
  again.close();
  const exportRefused = await crypto.subtle.exportKey("pkcs8", key).then(
    () => false,
    () => true,
  );
  const signed = await signEcfXml(xml, key, fromBase64(certificateBase64));
  const verdict = await verifyXml(signed);
  return {
    signed,
    storedKey: { type: key.type, extractable: key.extractable, usages: [...key.usages], algorithm: key.algorithm.name },
    exportRefused,
    verifiedInPage: verdict.ok,
    userAgent: navigator.userAgent,
  };
}

(globalThis as { signInPage?: typeof signInPage }).signInPage = signInPage;
