/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The schema migrations from sql/, built into the library. */
#ifndef MAP_STORE_SQL_H
#define MAP_STORE_SQL_H

struct map_migration {
	int version;		/* PRAGMA user_version after applying it */
	const char *name;
	const char *sql;
};

extern const struct map_migration map_migrations[];
extern const int map_migration_count;

#endif
