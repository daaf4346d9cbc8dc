import journal from './meta/_journal.json';
import m0000 from './0000_issuer.sql';
import m0001 from './0001_voided_ranges.sql';
import m0002 from './0002_notices.sql';
import m0003 from './0003_supplier_defaults.sql';
import m0004 from './0004_catalog.sql';
import m0005 from './0005_idempotency_receipt.sql';

  export default {
    journal,
    migrations: {
      m0000,
m0001,
m0002,
m0003,
m0004,
m0005
    }
  }
  