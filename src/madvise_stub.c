/* Startup stubs, one per architecture.  None is implemented yet.  */
#include <config.h>

#include "madvise_stub.h"

const struct madvise_stub *
stub_for_machine (unsigned e_machine, int elfclass)
{
  (void) e_machine;
  (void) elfclass;
  return NULL;
}
