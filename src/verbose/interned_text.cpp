// SPDX-License-Identifier: Apache-2.0
#include "verbose/interned_text.h"

#include <deque>
#include <mutex>
#include <vector>

#include "verbose/hash.h"

namespace dlcheck::verbose {
namespace {

// The process's texts, each once: strings in a deque (their addresses never change), found
// through an open-addressing table of (hash, string) slots, load at most 1/2.
class Pool {
 public:
  // The entry for `text`; adds the bytes a new one takes to `stored_bytes`.
  const std::string* Intern(std::string_view text, std::size_t& stored_bytes) {
    const std::uint64_t hash = FullHash(text);
    std::lock_guard<std::mutex> lock(mutex_);
    if (2 * (texts_.size() + 1) > slots_.size()) Grow();
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash & mask;
    for (; slots_[i].text != nullptr; i = (i + 1) & mask) {
      if (slots_[i].hash == hash && *slots_[i].text == text) return slots_[i].text;
    }
    slots_[i] = {hash, &texts_.emplace_back(text)};
    const std::size_t heap = texts_.back().capacity() > 15 ? texts_.back().capacity() + 1 : 0;
    text_bytes_ += heap;
    stored_bytes += sizeof(std::string) + heap + 2 * sizeof(Slot);
    return slots_[i].text;
  }

  std::size_t texts() {
    std::lock_guard<std::mutex> lock(mutex_);
    return texts_.size();
  }
  std::size_t bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return texts_.size() * sizeof(std::string) + text_bytes_ + slots_.size() * sizeof(Slot);
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    const std::string* text = nullptr;
  };

  void Grow() {
    std::vector<Slot> old(slots_.empty() ? 1024 : 2 * slots_.size());
    old.swap(slots_);
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.text == nullptr) continue;
      std::size_t i = s.hash & mask;
      while (slots_[i].text != nullptr) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::mutex mutex_;
  std::vector<Slot> slots_;
  std::deque<std::string> texts_;
  std::size_t text_bytes_ = 0;  // heap bytes of texts too long for the string itself
};

// Never destroyed: handles may be read by static destructors and detached threads.
Pool& ThePool() {
  static Pool* pool = new Pool();
  return *pool;
}

}  // namespace

InternedText::InternedText(std::string_view text) {
  std::size_t ignored = 0;
  if (!text.empty()) entry_ = ThePool().Intern(text, ignored);
}

InternedText::InternedText(std::string_view text, std::size_t& stored_bytes) {
  if (!text.empty()) entry_ = ThePool().Intern(text, stored_bytes);
}

const std::string& InternedText::Empty() {
  static const std::string* empty = new std::string();
  return *empty;
}

std::size_t InternedText::PoolTexts() {
  return ThePool().texts();
}

std::size_t InternedText::PoolBytes() {
  return ThePool().bytes();
}

}  // namespace dlcheck::verbose
