#pragma once
// Lets the core offer its big arrays to the kernel for transparent huge pages (Linux's "madvise"
// mode, Debian's default): the core itself makes no system call. Programs call it first thing.

namespace pacing::sim {

/// Sets pacing::huge_page_advice to madvise(MADV_HUGEPAGE) where the system has it.
void use_huge_pages();

}  // namespace pacing::sim
