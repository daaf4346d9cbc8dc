// node-forge's modules, each typed as the namespace it exports (@types/node-forge types only the
// package as a whole).
declare module "node-forge/lib/asn1" {
  import forge from "node-forge";
  export default forge.asn1;
}
declare module "node-forge/lib/pkcs12" {
  import forge from "node-forge";
  export default forge.pkcs12;
}
declare module "node-forge/lib/pki" {
  import forge from "node-forge";
  export default forge.pki;
}
declare module "node-forge/lib/util" {
  import forge from "node-forge";
  export default forge.util;
}
declare module "node-forge/lib/md.all";
