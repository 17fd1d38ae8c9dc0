#pragma once

namespace mnrl::core {

// Keeps the memory a training step frees for the next step instead of handing it back to the
// system. By default glibc gives large freed blocks back (unmapping them, or trimming the top of
// the heap) and page-faults them in again on the next allocation: LibTorch's convolution
// buffers (a few MB each, allocated and freed every minibatch) made PPO with a CNN encoder 4-5x
// slower that way, with a third of its time in the kernel. Process-wide; a no-op outside glibc.
void keep_freed_memory_for_reuse();

}  // namespace mnrl::core
