#include "CTesseraSQLiteSetup.h"
#include <sqlite3.h>

int tessera_sqlite_pages_on_demand(void) {
    // pMem NULL and N zero: no initial bulk allocation per connection (SQLITE_CONFIG_PAGECACHE).
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}
