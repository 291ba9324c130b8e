#pragma once
// A map from ids to values for ids handed out in increasing order and erased in any order (the
// simulator's request tags, the engine's request and attempt ids). Entries live in pages of
// consecutive ids, so that ids issued close in time sit close in memory: issuing a request touches
// the page being filled (in cache) where a hash table sends each new id to a random, cold slot, and
// nothing is rehashed as it grows. A page that has thinned out (stragglers: requests held long
// among many that completed) moves what it still holds to a hash table and is freed, so memory
// stays within a few times what is held, whatever the order of erasure; and while the map holds few
// ids, new ones go to the hash table too (an engine of a crowd holds a request or two: a page would
// be most of its memory). References to values are valid until the next insertion or erasure (keep
// ids, not pointers).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/id_map.hpp"

namespace pacing {

template <typename Value>
class SequentialIdMap {
 public:
  /// The value of `id`, or nullptr.
  Value* find(std::uint64_t id) {
    if (Page* page = page_of(id)) {
      std::optional<Value>& slot = page->slots[id & kMask];
      return slot ? &*slot : nullptr;
    }
    return hashed_.empty() ? nullptr : hashed_.find(id);
  }
  const Value* find(std::uint64_t id) const { return const_cast<SequentialIdMap*>(this)->find(id); }
  bool contains(std::uint64_t id) const { return find(id) != nullptr; }

  /// The value of `id`, made from `args` when `id` is new. Returns it and whether it was new.
  template <typename... Args>
  std::pair<Value*, bool> try_emplace(std::uint64_t id, Args&&... args) {
    const std::uint64_t index = id >> kPageBits;
    Page* page = page_of(id);
    if (!page) {
      // Few held: hashed, and so are the ids of its page and below from now on.
      if (index >= next_page_ && size_ < kThinnedOut) next_page_ = index + 1;
      // A page freed before, one below the span, or few held: the id is hashed.
      if (index < next_page_) {
        auto [value, fresh] = hashed_.try_emplace(id, std::forward<Args>(args)...);
        if (fresh) ++size_;
        return {value, fresh};
      }
      page = &open_page(index);
    }
    std::optional<Value>& slot = page->slots[id & kMask];
    if (slot) return {&*slot, false};
    slot.emplace(std::forward<Args>(args)...);
    ++page->held;
    ++size_;
    return {&*slot, true};
  }

  /// Removes `id`; returns whether it was there.
  bool erase(std::uint64_t id) {
    Page* page = page_of(id);
    if (!page) {
      if (hashed_.empty() || !hashed_.erase(id)) return false;
      --size_;
      return true;
    }
    std::optional<Value>& slot = page->slots[id & kMask];
    if (!slot) return false;
    slot.reset();
    --size_;
    --page->held;
    // The newest page is (or was last) being filled: it stays, however few it holds.
    const std::uint64_t index = id >> kPageBits;
    if (index != first_page_ + pages_.size() - 1 && page->held <= kThinnedOut) retire(index);
    return true;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// Calls `fn(id, value)` for every entry, in no particular order (do not insert or erase).
  template <typename Fn>
  void for_each(Fn&& fn) {
    for (std::size_t p = 0; p < pages_.size(); ++p) {
      if (!pages_[p]) continue;
      const std::uint64_t base = (first_page_ + p) << kPageBits;
      for (std::uint64_t i = 0; i < kPageSize; ++i) {
        if (auto& slot = pages_[p]->slots[i]) fn(base + i, *slot);
      }
    }
    hashed_.for_each(fn);
  }
  template <typename Fn>
  void for_each(Fn&& fn) const {
    const_cast<SequentialIdMap*>(this)->for_each(
        [&](std::uint64_t id, const Value& value) { fn(id, value); });
  }

  void clear() { *this = SequentialIdMap(); }

 private:
  static constexpr unsigned kPageBits = 8;  // 256 ids per page
  static constexpr std::uint64_t kPageSize = std::uint64_t{1} << kPageBits;
  static constexpr std::uint64_t kMask = kPageSize - 1;
  /// An erasure that leaves a page (not the newest) holding this few, a quarter of its slots,
  /// moves them to `hashed_` and frees the page: pages stay about 4 times what they hold at
  /// most. Measured on bench_sim's 1M requests
  /// (2026-12-03): an eighth, 289 MiB peak and 2.9-3.0 s; a quarter, 254 MiB and 3.05-3.15 s; a
  /// half, 254 MiB and 3.2-3.3 s (the hash table alone: 242 MiB, 3.8-3.9 s).
  static constexpr std::size_t kThinnedOut = kPageSize / 4;

  struct Page {
    std::array<std::optional<Value>, kPageSize> slots{};
    std::size_t held = 0;
  };

  Page* page_of(std::uint64_t id) const {
    const std::uint64_t index = id >> kPageBits;
    if (index < first_page_ || index - first_page_ >= pages_.size()) return nullptr;
    return pages_[index - first_page_].get();
  }

  /// A new page `index`, past every page so far (those skipped stay freed).
  Page& open_page(std::uint64_t index) {
    if (pages_.empty()) first_page_ = index;
    while (first_page_ + pages_.size() < index) pages_.emplace_back();
    pages_.push_back(spare_ ? std::move(spare_) : std::make_unique<Page>());
    next_page_ = index + 1;
    return *pages_.back();
  }

  /// Frees page `index` (not the newest), its entries moved to `hashed_`. One freed page is
  /// kept for the next new one: pages are freed and needed at the rate ids are.
  void retire(std::uint64_t index) {
    std::unique_ptr<Page>& page = pages_[index - first_page_];
    for (std::uint64_t i = 0; i < kPageSize && page->held > 0; ++i) {
      if (std::optional<Value>& slot = page->slots[i]) {
        hashed_.try_emplace((index << kPageBits) + i, std::move(*slot));
        slot.reset();
        --page->held;
      }
    }
    if (!spare_) spare_ = std::move(page);
    page.reset();
    // Forget the freed pages at the front once they are half of the list (amortized O(1)).
    while (!pages_[leading_freed_]) ++leading_freed_;  // the newest page is never freed
    if (leading_freed_ * 2 > pages_.size()) {
      pages_.erase(pages_.begin(), pages_.begin() + static_cast<std::ptrdiff_t>(leading_freed_));
      first_page_ += leading_freed_;
      leading_freed_ = 0;
    }
  }

  // Pages first_page_, first_page_ + 1, ..., null when freed; the last one is never freed.
  std::vector<std::unique_ptr<Page>> pages_;
  std::size_t leading_freed_ = 0;  ///< the freed pages at the front of `pages_`
  std::uint64_t first_page_ = 0;
  /// Past the newest page opened, or the newest id hashed while few were held: older ids never
  /// get a page.
  std::uint64_t next_page_ = 0;
  std::unique_ptr<Page> spare_;
  IdMap<Value> hashed_;  ///< entries of pages freed while they still held some, or of few held
  std::size_t size_ = 0;
};

}  // namespace pacing
