// SPDX-License-Identifier: Apache-2.0
#include "profile/perf_data.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

namespace dlcheck::profile {
namespace {

// linux/perf_event.h
constexpr std::uint32_t kRecordMmap = 1;
constexpr std::uint32_t kRecordFork = 7;
constexpr std::uint32_t kRecordSample = 9;
constexpr std::uint32_t kRecordMmap2 = 10;
constexpr std::uint16_t kMiscMmapData = 1 << 13;  // PERF_RECORD_MISC_MMAP_DATA: not code
constexpr std::uint32_t kProtExec = 4;

enum SampleBit : std::uint64_t {
  kIp = 1 << 0,
  kTid = 1 << 1,
  kTime = 1 << 2,
  kAddr = 1 << 3,
  kRead = 1 << 4,
  kCallchain = 1 << 5,
  kId = 1 << 6,
  kCpu = 1 << 7,
  kPeriod = 1 << 8,
  kStreamId = 1 << 9,
  kRaw = 1 << 10,
  kBranchStack = 1 << 11,
  kRegsUser = 1 << 12,
  kStackUser = 1 << 13,
  kIdentifier = 1 << 16,
};
constexpr std::uint64_t kReadTimeEnabled = 1 << 0;
constexpr std::uint64_t kReadTimeRunning = 1 << 1;
constexpr std::uint64_t kReadId = 1 << 2;
constexpr std::uint64_t kReadGroup = 1 << 3;
constexpr std::uint64_t kReadLost = 1 << 4;
constexpr std::uint64_t kBranchHwIndex = 1 << 17;  // PERF_SAMPLE_BRANCH_HW_INDEX
constexpr int kRegSp = 7;                          // PERF_REG_X86_SP (asm/perf_regs.h)
constexpr int kRegIp = 8;                          // PERF_REG_X86_IP

constexpr char kMagic[] = "PERFILE2";
constexpr std::size_t kFileHeaderBytes = 104;
constexpr std::size_t kFileSectionBytes = 16;
constexpr std::size_t kAttrMinBytes = 96;    // PERF_ATTR_SIZE_VER3: up to sample_stack_user
constexpr std::size_t kAttrMaxBytes = 4096;  // perf_event_attr is 136 bytes in Linux 6.1
constexpr std::uint64_t kMaxEvents = 4096;

// The fields of a perf_event_attr that shape a sample.
struct Attr {
  std::uint64_t sample_type = 0;
  std::uint64_t read_format = 0;
  std::uint64_t branch_sample_type = 0;
  std::uint64_t regs_user = 0;
  bool operator==(const Attr&) const = default;
};

// Bounds-checked little-endian reads over one record's bytes.
class Cursor {
 public:
  explicit Cursor(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
  bool ok() const { return ok_; }
  std::size_t left() const { return bytes_.size() - at_; }

  std::uint64_t U64() { return Take<std::uint64_t>(); }
  std::uint32_t U32() { return Take<std::uint32_t>(); }
  void Skip(std::uint64_t n) {
    if (n > left()) {
      ok_ = false;
      at_ = bytes_.size();
      return;
    }
    at_ += n;
  }
  std::span<const std::uint8_t> Bytes(std::uint64_t n) {
    if (n > left()) {
      ok_ = false;
      at_ = bytes_.size();
      return {};
    }
    std::span<const std::uint8_t> out = bytes_.subspan(at_, n);
    at_ += n;
    return out;
  }
  // A NUL-terminated string padded to 8 bytes, the rest of a name field.
  std::string CString() {
    const std::size_t end = std::min(left(), std::size_t{4096});
    std::size_t n = 0;
    while (n < end && bytes_[at_ + n] != 0) ++n;
    std::string s(reinterpret_cast<const char*>(bytes_.data() + at_), n);
    at_ += n;
    return s;
  }

 private:
  template <typename T>
  T Take() {
    T value{};
    if (sizeof(T) > left()) {
      ok_ = false;
      at_ = bytes_.size();
      return value;
    }
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t at_ = 0;
  bool ok_ = true;
};

bool ReadAt(std::istream& in, std::uint64_t offset, void* out, std::size_t n) {
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(static_cast<char*>(out), static_cast<std::streamsize>(n));
  return static_cast<std::size_t>(in.gcount()) == n;
}

struct FileSection {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

struct FileHeader {
  std::uint64_t attr_size = 0;
  FileSection attrs;
  FileSection data;
};

Status Damaged(std::string_view what) {
  return InputError(fmt::format("not a readable perf.data: {}", what));
}

StatusOr<FileHeader> ReadFileHeader(std::istream& in) {
  std::uint8_t raw[kFileHeaderBytes];
  if (!ReadAt(in, 0, raw, sizeof raw)) return Damaged("shorter than its header");
  if (std::memcmp(raw, kMagic, 8) != 0) return Damaged("no PERFILE2 magic");
  Cursor c(raw);
  c.Skip(16);  // magic, header size
  FileHeader h;
  h.attr_size = c.U64();
  h.attrs = {c.U64(), c.U64()};
  h.data = {c.U64(), c.U64()};
  if (h.attr_size < kAttrMinBytes + kFileSectionBytes) return Damaged("event attributes too old");
  if (h.attr_size > kAttrMaxBytes) return Damaged("event attributes of an unknown size");
  return h;
}

// The events' attributes and the sample ids that name each (the id -> attr index map).
struct Events {
  std::vector<Attr> attrs;
  std::map<std::uint64_t, std::size_t> by_id;
};

Attr ParseAttr(std::span<const std::uint8_t> raw) {
  Cursor c(raw);
  c.Skip(24);  // type, size, config, sample_period
  Attr a;
  a.sample_type = c.U64();
  a.read_format = c.U64();
  c.Skip(32);  // flags, wakeup, bp_type, config1, config2
  a.branch_sample_type = c.U64();
  a.regs_user = c.U64();
  return a;
}

StatusOr<Events> ReadEvents(std::istream& in, const FileHeader& h) {
  Events events;
  const std::uint64_t count = h.attrs.size / h.attr_size;
  if (count == 0) return Damaged("no event attributes");
  if (count > kMaxEvents) {
    return Damaged(
        fmt::format("{} event attributes, more than the {} dlcheck reads", count, kMaxEvents));
  }
  std::vector<std::uint8_t> raw(h.attr_size);
  std::uint64_t ids_total = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (!ReadAt(in, h.attrs.offset + i * h.attr_size, raw.data(), raw.size())) {
      return Damaged("event attributes cut short");
    }
    events.attrs.push_back(ParseAttr(raw));
    Cursor ids_at(std::span<const std::uint8_t>(raw).subspan(h.attr_size - kFileSectionBytes));
    const FileSection ids{ids_at.U64(), ids_at.U64()};
    // Counted before anything is stored: a header may claim billions.
    ids_total += ids.size / 8;
    if (ids_total > kMaxPerfDataIds) {
      return Damaged(
          fmt::format("more than {} event ids (one per CPU and event)", kMaxPerfDataIds));
    }
    std::vector<std::uint64_t> id_list(ids.size / 8);
    if (!ReadAt(in, ids.offset, id_list.data(), id_list.size() * 8)) {
      return Damaged("event ids cut short");
    }
    for (std::uint64_t id : id_list) events.by_id[id] = i;
  }
  return events;
}

// Which attribute a sample was recorded under: the only one, the one its leading
// PERF_SAMPLE_IDENTIFIER names, or any one when all lay their samples out alike.
class AttrFinder {
 public:
  static StatusOr<AttrFinder> For(const Events& events) {
    AttrFinder f(events);
    if (events.attrs.size() == 1) return f;
    f.by_identifier_ = (events.attrs.front().sample_type & kIdentifier) != 0;
    if (f.by_identifier_) return f;
    for (const Attr& a : events.attrs) {
      if (!(a == events.attrs.front())) {
        return Damaged("events with different sample layouts and no sample identifier");
      }
    }
    return f;
  }

  const Attr* Find(std::span<const std::uint8_t> body) const {
    if (!by_identifier_) return &events_->attrs.front();
    Cursor c(body);
    const auto it = events_->by_id.find(c.U64());
    return it == events_->by_id.end() ? nullptr : &events_->attrs[it->second];
  }

 private:
  explicit AttrFinder(const Events& events) : events_(&events) {}
  const Events* events_;
  bool by_identifier_ = false;
};

void SkipRead(Cursor& c, std::uint64_t format) {
  const int extras = ((format & kReadTimeEnabled) != 0) + ((format & kReadTimeRunning) != 0);
  const int per_value = 1 + ((format & kReadId) != 0) + ((format & kReadLost) != 0);
  if ((format & kReadGroup) == 0) {
    c.Skip(8 * (extras + per_value));
    return;
  }
  const std::uint64_t nr = c.U64();
  c.Skip(8 * extras);
  c.Skip(8 * per_value * nr);
}

// The fields before the user registers, in the kernel's order.
void SkipToUserRegs(Cursor& c, const Attr& a, PerfDataSample& s) {
  const std::uint64_t t = a.sample_type;
  if (t & kIdentifier) c.Skip(8);
  if (t & kIp) s.ip = c.U64();
  if (t & kTid) {
    s.pid = c.U32();
    s.tid = c.U32();
  }
  if (t & kTime) s.time_ns = c.U64();
  for (std::uint64_t bit : {kAddr, kId, kStreamId, kCpu, kPeriod}) {
    if (t & bit) c.Skip(8);
  }
  if (t & kRead) SkipRead(c, a.read_format);
  if (t & kCallchain) c.Skip(8 * c.U64());
  if (t & kRaw) c.Skip(c.U32());
  if (t & kBranchStack) {
    const std::uint64_t nr = c.U64();
    if (a.branch_sample_type & kBranchHwIndex) c.Skip(8);
    c.Skip(24 * nr);
  }
}

void ReadUserStack(Cursor& c, const Attr& a, PerfDataSample& s) {
  if (a.sample_type & kRegsUser) {
    const std::uint64_t abi = c.U64();
    if (abi != 0) {
      // The registers are stored in the order of their bits in the mask.
      const auto index_of = [&](int reg) {
        return (a.regs_user >> reg & 1) != 0
                   ? std::popcount(a.regs_user & ((std::uint64_t{1} << reg) - 1))
                   : -1;
      };
      const int sp_index = index_of(kRegSp);
      const int ip_index = index_of(kRegIp);
      const int count = std::popcount(a.regs_user);
      for (int i = 0; i < count; ++i) {
        const std::uint64_t value = c.U64();
        if (i == ip_index) s.user_ip = value;
        if (i == sp_index) {
          s.sp = value;
          s.has_user_regs = true;
        }
      }
    }
  }
  if (a.sample_type & kStackUser) {
    const std::uint64_t size = c.U64();
    if (size == 0) return;
    std::span<const std::uint8_t> copy = c.Bytes(size);
    const std::uint64_t dynamic = c.U64();
    s.stack = copy.first(std::min<std::uint64_t>(dynamic, copy.size()));
  }
}

bool ParseSample(std::span<const std::uint8_t> body, const Attr& a, PerfDataSample& s) {
  Cursor c(body);
  SkipToUserRegs(c, a, s);
  ReadUserStack(c, a, s);
  return c.ok();
}

bool ParseMmap(std::span<const std::uint8_t> body, std::uint32_t type, std::uint16_t misc,
               PerfDataMmap& m) {
  Cursor c(body);
  m.pid = c.U32();
  c.Skip(4);  // tid
  m.start = c.U64();
  m.length = c.U64();
  m.file_offset = c.U64();
  m.executable = (misc & kMiscMmapData) == 0;
  if (type == kRecordMmap2) {
    c.Skip(24);  // device and inode, or build id
    m.executable = (c.U32() & kProtExec) != 0;
    c.Skip(4);  // flags
  }
  m.filename = c.CString();
  return c.ok();
}

struct RecordHeader {
  std::uint32_t type = 0;
  std::uint16_t misc = 0;
  std::uint16_t size = 0;
};

class RecordLoop {
 public:
  RecordLoop(const AttrFinder& finder, const PerfDataVisitor& visitor)
      : finder_(finder), visitor_(visitor) {}

  void Handle(const RecordHeader& h, std::span<const std::uint8_t> body) {
    ++counts_.records;
    if (h.type == kRecordSample) {
      HandleSample(body);
    } else if ((h.type == kRecordMmap || h.type == kRecordMmap2) && visitor_.on_mmap) {
      PerfDataMmap m;
      if (ParseMmap(body, h.type, h.misc, m)) visitor_.on_mmap(m);
    } else if (h.type == kRecordFork && visitor_.on_fork) {
      Cursor c(body);
      PerfDataFork f{.pid = c.U32(), .ppid = c.U32()};
      if (c.ok()) visitor_.on_fork(f);
    }
  }
  const PerfDataCounts& counts() const { return counts_; }

 private:
  void HandleSample(std::span<const std::uint8_t> body) {
    ++counts_.samples;
    const Attr* attr = finder_.Find(body);
    PerfDataSample s;
    if (attr == nullptr || !ParseSample(body, *attr, s)) return;
    if (s.has_user_regs && !s.stack.empty()) ++counts_.samples_with_stack;
    if (visitor_.on_sample) visitor_.on_sample(s);
  }

  const AttrFinder& finder_;
  const PerfDataVisitor& visitor_;
  PerfDataCounts counts_;
};

}  // namespace

StatusOr<PerfDataCounts> ReadPerfData(std::istream& in, const PerfDataVisitor& visitor) {
  StatusOr<FileHeader> header = ReadFileHeader(in);
  if (!header.ok()) return header.status();
  StatusOr<Events> events = ReadEvents(in, *header);
  if (!events.ok()) return events.status();
  StatusOr<AttrFinder> finder = AttrFinder::For(*events);
  if (!finder.ok()) return finder.status();
  RecordLoop loop(*finder, visitor);
  std::vector<std::uint8_t> body;
  std::uint64_t at = header->data.offset;
  const std::uint64_t end = header->data.offset + header->data.size;
  in.clear();
  in.seekg(static_cast<std::streamoff>(at));
  while (at + 8 <= end) {
    if (visitor.stop && visitor.stop()) {
      PerfDataCounts counts = loop.counts();
      counts.stopped = true;
      return counts;
    }
    std::uint8_t raw[8];
    in.read(reinterpret_cast<char*>(raw), sizeof raw);
    if (in.gcount() != sizeof raw) return Damaged("data section cut short");
    RecordHeader h;
    std::memcpy(&h.type, raw, 4);
    std::memcpy(&h.misc, raw + 4, 2);
    std::memcpy(&h.size, raw + 6, 2);
    if (h.size < 8 || at + h.size > end) return Damaged("a record overruns the data section");
    body.resize(h.size - 8);
    in.read(reinterpret_cast<char*>(body.data()), static_cast<std::streamsize>(body.size()));
    if (static_cast<std::size_t>(in.gcount()) != body.size()) return Damaged("record cut short");
    loop.Handle(h, body);
    at += h.size;
  }
  return loop.counts();
}

}  // namespace dlcheck::profile
