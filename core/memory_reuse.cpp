#include "core/memory_reuse.h"

#include <cstdlib>  // defines __GLIBC__ under glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace mnrl::core {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  // Blocks up to 32 MB (the most glibc takes) come from the heap, not from their own mapping
  // (glibc starts at 128 KB), and up to 512 MB of free heap top stays mapped: a training
  // step's buffers are reused as they are.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
}

}  // namespace mnrl::core
