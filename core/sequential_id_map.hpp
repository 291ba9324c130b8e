#pragma once
// A map from ids to values for ids handed out in increasing order and erased in any order (the
// simulator's request tags, the engine's request and attempt ids). Values live in a pool of slots
// that never move, and a freed slot is the next one taken (the slot a completion just freed is
// still in cache when the next id takes it): the pool is as large as the most values held at once,
// whatever the span of ids held. An id finds its slot through pages of 256 consecutive ids (4 bytes
// an id): issuing an id writes into the page being filled, which is in cache, where a hash table
// sends each new id to a random, cold slot. A page that has thinned out to a few stragglers
// (requests held long among many that completed) moves their slot numbers, not the values, to a
// hash table and is freed, so pages cost at most 64 bytes per id held; and while the map holds few
// ids, new ones go to the hash table too (an engine of a crowd holds a request or two: a page would
// be most of its memory). References to values are valid until the value is erased.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/huge_page_allocator.hpp"
#include "core/id_map.hpp"

namespace pacing {

template <typename Value>
class SequentialIdMap {
 public:
  /// The value of `id`, or nullptr.
  Value* find(std::uint64_t id) {
    const std::uint32_t slot = slot_of(id);
    return slot == kNone ? nullptr : &pool_.at(slot);
  }
  const Value* find(std::uint64_t id) const { return const_cast<SequentialIdMap*>(this)->find(id); }
  bool contains(std::uint64_t id) const { return find(id) != nullptr; }

  /// The value of `id`, made from `args` when `id` is new. Returns it and whether it was new.
  template <typename... Args>
  std::pair<Value*, bool> try_emplace(std::uint64_t id, Args&&... args) {
    const std::uint64_t index = id >> kPageBits;
    Page* page = page_of(id);
    std::uint32_t* slot = nullptr;
    if (page) {
      slot = &page->slots[id & kMask];
    } else {
      // Few held: hashed, and so are the ids of its page and below from now on.
      if (index >= next_page_ && size_ < kFewHeld) next_page_ = index + 1;
      if (index < next_page_) {  // a page freed before, one below the span, or few held
        slot = hashed_.try_emplace(id, kNone).first;
      } else {
        page = &open_page(index);
        slot = &page->slots[id & kMask];
      }
    }
    if (*slot != kNone) return {&pool_.at(*slot), false};
    *slot = pool_.take(std::forward<Args>(args)...);
    if (page) ++page->held;
    ++size_;
    return {&pool_.at(*slot), true};
  }

  /// Removes `id`; returns whether it was there.
  bool erase(std::uint64_t id) {
    Page* page = page_of(id);
    if (!page) {
      const std::uint32_t* slot = hashed_.empty() ? nullptr : hashed_.find(id);
      if (!slot) return false;
      pool_.give_back(*slot);
      hashed_.erase(id);
      --size_;
      return true;
    }
    std::uint32_t& slot = page->slots[id & kMask];
    if (slot == kNone) return false;
    pool_.give_back(slot);
    slot = kNone;
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
        if (const std::uint32_t slot = pages_[p]->slots[i]; slot != kNone)
          fn(base + i, pool_.at(slot));
      }
    }
    hashed_.for_each([&](std::uint64_t id, std::uint32_t slot) { fn(id, pool_.at(slot)); });
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
  /// An erasure that leaves a page (not the newest) holding this few moves their slot numbers to
  /// `hashed_` and frees the page: a page costs at most 1 KiB / 16 = 64 bytes per id it holds.
  /// Pages hold slot numbers, not values, and thin out late: a backlog that leaves every page
  /// partly full must not move a value at each erasure (docs/benchmarks.md).
  static constexpr std::size_t kThinnedOut = kPageSize / 16;
  /// While the map holds fewer than this, new ids are hashed (no page).
  static constexpr std::size_t kFewHeld = kPageSize / 4;
  /// A page's or hash entry's "no slot"; slots are numbered from 1.
  static constexpr std::uint32_t kNone = 0;

  /// Values in slots numbered 1, 2, ...: chunk c holds slots [2^c, 2^(c+1)), so that the pool
  /// grows by doubling without moving a value, and a map holding one value has one slot. A slot is
  /// the value's bytes and nothing else (whether it is live is known from the pages and the free
  /// list), and a value whose size is a multiple of a cache line gets slots aligned to one: a
  /// 256-byte value then spans four lines, where at any 8-byte offset it spans five, most of the
  /// time (a request's record is touched whole at its start and its end, long after it was last
  /// in cache).
  class Pool {
   public:
    Pool() = default;
    Pool(Pool&& other) noexcept
        : chunks_(std::move(other.chunks_)),
          free_(std::move(other.free_)),
          used_(std::exchange(other.used_, 0)) {
      other.chunks_.clear();
      other.free_.clear();
    }
    Pool& operator=(Pool&& other) noexcept {
      if (this != &other) {
        destroy_all();
        chunks_ = std::move(other.chunks_);
        free_ = std::move(other.free_);
        used_ = std::exchange(other.used_, 0);
        other.chunks_.clear();
        other.free_.clear();
      }
      return *this;
    }
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
    ~Pool() { destroy_all(); }

    /// The live value in `slot`.
    Value& at(std::uint32_t slot) { return *std::launder(reinterpret_cast<Value*>(bytes(slot))); }
    /// A free slot holding a value made from `args`, the last one given back first.
    template <typename... Args>
    std::uint32_t take(Args&&... args) {
      std::uint32_t slot = 0;
      if (!free_.empty()) {
        slot = free_.back();
        ::new (bytes(slot)) Value(std::forward<Args>(args)...);
        free_.pop_back();  // after the value is made: a throw leaves the slot free
        return slot;
      }
      slot = used_ + 1;
      if (std::has_single_bit(slot)) chunks_.emplace_back().reserve(slot);
      // Slots are added as they are first taken, not with their chunk: a chunk's memory is
      // touched (and paid for) only as far as the pool has grown into it.
      chunks_.back().emplace_back();
      try {
        ::new (bytes(slot)) Value(std::forward<Args>(args)...);
      } catch (...) {
        chunks_.back().pop_back();
        if (chunks_.back().empty()) chunks_.pop_back();
        throw;
      }
      used_ = slot;
      return slot;
    }
    /// Destroys the value in `slot` and frees the slot.
    void give_back(std::uint32_t slot) {
      free_.push_back(slot);  // first: if it throws, the value is still there and live
      at(slot).~Value();
    }

   private:
    static constexpr std::size_t kLine = 64;
    static constexpr std::size_t kSlotAlign =
        sizeof(Value) % kLine == 0 ? std::max(kLine, alignof(Value)) : alignof(Value);
    struct alignas(kSlotAlign) Slot {
      unsigned char bytes[sizeof(Value)];
    };
    static_assert(sizeof(Slot) == sizeof(Value), "a slot is its value's bytes");

    unsigned char* bytes(std::uint32_t slot) {
      const int chunk = std::bit_width(slot) - 1;
      return chunks_[static_cast<std::size_t>(chunk)][slot - (std::uint32_t{1} << chunk)].bytes;
    }
    /// Destroys the live values: slots 1..used_ but the free ones.
    void destroy_all() noexcept {
      if constexpr (!std::is_trivially_destructible_v<Value>) {
        std::vector<bool> free(std::size_t{used_} + 1);
        for (const std::uint32_t slot : free_) free[slot] = true;
        for (std::uint32_t slot = 1; slot <= used_; ++slot) {
          if (!free[slot]) at(slot).~Value();
        }
      }
      chunks_.clear();
      free_.clear();
      used_ = 0;
    }

    // Chunk k holds up to 2^k slots, reserved when the first of them is taken: they never move.
    using Chunk = std::vector<Slot, HugePageAllocator<Slot>>;
    std::vector<Chunk> chunks_;
    std::vector<std::uint32_t> free_;
    std::uint32_t used_ = 0;  // slots 1..used_ have been handed out
  };

  struct Page {
    std::array<std::uint32_t, kPageSize> slots{};
    std::size_t held = 0;
  };

  std::uint32_t slot_of(std::uint64_t id) const {
    if (const Page* page = page_of(id)) return page->slots[id & kMask];
    if (hashed_.empty()) return kNone;
    const std::uint32_t* slot = hashed_.find(id);
    return slot ? *slot : kNone;
  }

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

  /// Frees page `index` (not the newest), its stragglers' slots moved to `hashed_`. One freed
  /// page is kept for the next new one: pages are freed and needed at the rate ids are.
  void retire(std::uint64_t index) {
    std::unique_ptr<Page>& page = pages_[index - first_page_];
    for (std::uint64_t i = 0; i < kPageSize && page->held > 0; ++i) {
      if (std::uint32_t& slot = page->slots[i]; slot != kNone) {
        hashed_.try_emplace((index << kPageBits) + i, slot);
        slot = kNone;
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

  Pool pool_;
  // Pages first_page_, first_page_ + 1, ..., null when freed; the last one is never freed.
  std::vector<std::unique_ptr<Page>> pages_;
  std::size_t leading_freed_ = 0;  ///< the freed pages at the front of `pages_`
  std::uint64_t first_page_ = 0;
  /// Past the newest page opened, or the newest id hashed while few were held: older ids never
  /// get a page.
  std::uint64_t next_page_ = 0;
  std::unique_ptr<Page> spare_;
  IdMap<std::uint32_t> hashed_;  ///< slots of ids of freed pages, or of few held
  std::size_t size_ = 0;
};

}  // namespace pacing
