// A plugin that calls a function no library defines, as one built against another version of a
// library would. It links (shared libraries may leave symbols undefined) but cannot be loaded.
#include "envs/plugin.h"

namespace mnrl_test {
int helper_that_nobody_defines(int value);
}

MNRL_PLUGIN(registry) {
  if (mnrl_test::helper_that_nobody_defines(1) == 0) registry.ids();
}
