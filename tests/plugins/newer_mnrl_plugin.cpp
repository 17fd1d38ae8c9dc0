// A plugin built against a newer mnrl: it calls an mnrl function this mnrl does not have, which
// is how most version mismatches show (the loader cannot read the SDK version before the
// library's symbols resolve).
#include "envs/plugin.h"

namespace mnrl::envs {
void function_from_a_newer_mnrl(Registry& registry);
}

MNRL_PLUGIN(registry) { mnrl::envs::function_from_a_newer_mnrl(registry); }
