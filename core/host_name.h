#pragma once

#include <cstdint>
#include <string>

namespace mnrl::core {

// This machine's host name as gethostname reports it (per UTS namespace, so two ranks in their
// own namespaces count as two hosts); "localhost" where it cannot be read.
std::string host_name();
// A non-negative hash of host_name(), for ranks to compare hosts in one all-gather.
std::int64_t host_name_hash();

}  // namespace mnrl::core
