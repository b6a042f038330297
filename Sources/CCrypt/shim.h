// The system's libcrypt (libxcrypt): yescrypt password hashing for the hub's accounts.
#include <crypt.h>
