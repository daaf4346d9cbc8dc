import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { companies } from "./tables.ts";

// The console's people: users who sign in with an e-mail and a password, their role in each
// company, invitations by e-mail and browser sessions. Timestamps are ISO 8601 strings in UTC.
const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

export const CONSOLE_ROLES = ["owner", "accountant", "manager"] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** A person who signs in to the console. The password is kept only as a slow hash (console/passwords.ts). */
export const consoleUsers = sqliteTable(
  "console_users",
  {
    id: text("id").primaryKey(), // "usr_…"
    /** Lower-cased; one user per address, whatever its companies. */
    email: text("email").notNull(),
    name: text("name").notNull(),
    passwordHash: text("password_hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("console_users_email_unique").on(t.email)],
);

/** A user's role in one company (a partner's user has several). */
export const consoleMemberships = sqliteTable(
  "console_memberships",
  {
    userId: text("user_id")
      .notNull()
      .references(() => consoleUsers.id),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    role: text("role", { enum: CONSOLE_ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.companyId] }), index("console_memberships_company").on(t.companyId)],
);

/** An invitation to join a company with a role: the token travels by e-mail, only its hash is kept. */
export const consoleInvitations = sqliteTable(
  "console_invitations",
  {
    id: text("id").primaryKey(), // "inv_…"
    tokenHash: text("token_hash").notNull(),
    email: text("email").notNull(),
    name: text("name"),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    role: text("role", { enum: CONSOLE_ROLES }).notNull(),
    /** Who invited (a user id), or null for the admin CLI. */
    invitedBy: text("invited_by"),
    expiresAt: text("expires_at").notNull(),
    acceptedAt: text("accepted_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("console_invitations_token_hash_unique").on(t.tokenHash)],
);

/** A signed-in browser: the cookie's token is kept only as a hash; the CSRF token is sent back as a header. */
export const consoleSessions = sqliteTable(
  "console_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => consoleUsers.id),
    /** The company the console acts for now (null: the user has no membership left). */
    companyId: text("company_id"),
    csrfToken: text("csrf_token").notNull(),
    /** Absolute end, whatever the activity. */
    expiresAt: text("expires_at").notNull(),
    /** Idle timeout counts from here. */
    lastSeenAt: text("last_seen_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("console_sessions_user").on(t.userId)],
);

export type ConsoleUser = typeof consoleUsers.$inferSelect;
export type ConsoleSessionRow = typeof consoleSessions.$inferSelect;

/**
 * The sign-in code e-mailed to a user whose sign-ins were throttled (migration 0015): one per user,
 * only its hash kept, good once for a few minutes and a few tries.
 */
export const consoleLoginCodes = sqliteTable("console_login_codes", {
  userId: text("user_id")
    .primaryKey()
    .references(() => consoleUsers.id),
  codeHash: text("code_hash").notNull(),
  expiresAt: text("expires_at").notNull(),
  attempts: integer("attempts").notNull().default(0),
});

/**
 * A user's authenticator-app secret (TOTP, migration 0018): sealed under MASTER_KEY, bound to the
 * user. Pending until a code from the app confirms it (`confirmedAt`); only then does sign-in ask
 * for a code. `lastStep` is the time step of the last code accepted, so no code serves twice.
 */
export const consoleTotp = sqliteTable("console_totp", {
  userId: text("user_id")
    .primaryKey()
    .references(() => consoleUsers.id),
  secretSealed: text("secret_sealed").notNull(),
  confirmedAt: text("confirmed_at"),
  lastStep: integer("last_step"),
  createdAt: createdAt(),
});
