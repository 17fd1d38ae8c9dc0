#pragma once

#include <string>

namespace mnrl::core {

// This machine's host name as gethostname reports it (per UTS namespace, so two ranks in their
// own namespaces count as two hosts); "localhost" where it cannot be read.
std::string host_name();

}  // namespace mnrl::core
