CREATE TABLE `login_throttle` (
	`scope` text PRIMARY KEY NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`window_start` text NOT NULL
);
