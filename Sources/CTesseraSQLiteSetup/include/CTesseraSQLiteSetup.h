// SQLite's process-wide settings, for what Swift cannot call: `sqlite3_config` takes C varargs.
#ifndef CTESSERA_SQLITE_SETUP_H
#define CTESSERA_SQLITE_SETUP_H

/// Turns off each connection's first bulk allocation of page-cache memory (20 pages, about 86 KB,
/// on the system SQLite), so that a connection holds only the pages it has read. Must run before
/// SQLite is first used in the process; returns SQLite's result code (SQLITE_MISUSE afterwards,
/// when it changes nothing).
int tessera_sqlite_pages_on_demand(void);

#endif
