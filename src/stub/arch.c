/* The table of startup stubs, one per architecture.  */
#include <config.h>

#include "stub/arch.h"

extern const struct stub_arch stub_arch_x86_64;
extern const struct stub_arch stub_arch_aarch64;
extern const struct stub_arch stub_arch_riscv64;

static const struct stub_arch *const arches[] = {
  &stub_arch_x86_64,
  &stub_arch_aarch64,
  &stub_arch_riscv64,
};

const struct stub_arch *
stub_arch_for (unsigned e_machine, int elfclass)
{
  for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
    if (arches[i]->e_machine == e_machine && arches[i]->elfclass == elfclass)
      return arches[i];
  return NULL;
}
