// A bounded, thread-safe set of idle resources keyed by what they were made for: a resource
// whose owner ended waits here for the next owner of the same key, so that it is not made
// again (cuFFT plans: cufft_handle_pool.hpp). Least recently returned goes first when full:
// the evicted entry is handed back to the caller, who destroys it. Pure host logic: tested
// without a device.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace nufftmp::detail {

template <typename Key, typename V>
class IdleCache {
 public:
  explicit IdleCache(std::size_t capacity) : capacity_(capacity) {}

  // A resource made for `key`, the most recently returned one, or none.
  std::optional<V> take(const Key& key) {
    std::lock_guard<std::mutex> lock(m_);
    for (auto it = idle_.rbegin(); it != idle_.rend(); ++it)
      if (it->first == key) {
        V v = std::move(it->second);
        idle_.erase(std::next(it).base());
        return v;
      }
    return std::nullopt;
  }

  // Keeps v for the next take(key). Returns the entry that no longer fits, if any (the least
  // recently returned; v itself at capacity 0). Throws only if storing v cannot allocate, and
  // then keeps nothing.
  std::optional<std::pair<Key, V>> give(const Key& key, V v) {
    std::lock_guard<std::mutex> lock(m_);
    idle_.emplace_back(key, std::move(v));
    if (idle_.size() <= capacity_) return std::nullopt;
    std::pair<Key, V> out = std::move(idle_.front());
    idle_.pop_front();
    return out;
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> lock(m_);
    return idle_.size();
  }

 private:
  mutable std::mutex m_;
  std::deque<std::pair<Key, V>> idle_;
  std::size_t capacity_;
};

}  // namespace nufftmp::detail
