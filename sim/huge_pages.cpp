#include "sim/huge_pages.hpp"

#include "core/huge_page_allocator.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace pacing::sim {

void use_huge_pages() {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice: a refusal leaves ordinary pages.
  huge_page_advice = [](void* block, std::size_t bytes) { ::madvise(block, bytes, MADV_HUGEPAGE); };
#endif
}

}  // namespace pacing::sim
