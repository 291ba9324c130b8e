#pragma once
// Finds again what a name stands for by the address of the name's characters. The engine names
// each host, group and queue by a view of the same string every time (its entry's key), and the
// simulator's attempts name their host by a view into the URL parsed once per request entry, so
// the address finds the recorder's or the network's record without hashing the name: a hash
// lookup per notification or per request was 2-3% of a million-request run. An address can be
// reused by another string once the first is freed, so the caller checks the name of what it finds
// (find_by_address does).

#include <cstdint>
#include <string_view>
#include <vector>

namespace pacing::sim {

template <typename Value>
class AddressCache {
 public:
  /// The value put for a name at the address of `name`'s characters, if that slot holds it.
  const Value* find(std::string_view name) const {
    if (slots_.empty()) return nullptr;
    const Slot& slot = slots_[slot_of(name)];
    return slot.data == name.data() ? &slot.value : nullptr;
  }
  /// Remembers `value` for the name at this address (replacing what shared its slot).
  void put(std::string_view name, Value value) {
    if (slots_.empty()) slots_.resize(kSlots);  // at first use: 64 KiB a cache
    slots_[slot_of(name)] = {name.data(), value};
  }

 private:
  static constexpr std::size_t kSlots = 4096;
  struct Slot {
    const char* data = nullptr;
    Value value{};
  };
  static std::size_t slot_of(std::string_view name) {
    return (reinterpret_cast<std::uintptr_t>(name.data()) >> 4) % kSlots;
  }
  std::vector<Slot> slots_;
};

/// The entry of `map` (keyed by strings, looked up by string_view) for `key`, or nullptr: found by
/// the address of `key`'s characters when `cache` remembers it and the entry's key is `key`, else
/// by hashing (and then remembered). `map` must never erase an entry (the cache would keep its
/// address).
template <typename Map>
typename Map::value_type* find_by_address(AddressCache<typename Map::value_type*>& cache, Map& map,
                                          std::string_view key) {
  if (auto* const* seen = cache.find(key); seen && (*seen)->first == key) return *seen;
  auto it = map.find(key);
  if (it == map.end()) return nullptr;
  cache.put(key, &*it);
  return &*it;
}

}  // namespace pacing::sim
