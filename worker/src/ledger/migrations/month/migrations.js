import journal from './meta/_journal.json';
import m0000 from './0000_month.sql';
import m0001 from './0001_after_dgii.sql';
import m0002 from './0002_receipt_emails.sql';
import m0003 from './0003_monthly_formats.sql';
import m0004 from './0004_figures_pending_index.sql';
import m0005 from './0005_shifts.sql';
import m0006 from './0006_purchase_confirmation.sql';
import m0007 from './0007_report_indexes.sql';

  export default {
    journal,
    migrations: {
      m0000,
m0001,
m0002,
m0003,
m0004,
m0005,
m0006,
m0007
    }
  }
  