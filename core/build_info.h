#pragma once

namespace mnrl::core {

// The mnrl version ("0.1.0").
const char* version();
// `git describe` of the source tree at build time, or "unknown" outside a git checkout.
const char* source_revision();

}  // namespace mnrl::core
