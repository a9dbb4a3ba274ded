// SPDX-License-Identifier: Apache-2.0
#include "verbose/parallel_feed.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace dlcheck::verbose {
namespace {

// Lines parsed in full by one thread in one chunk, at most: past it the chunk is a log of
// distinct lines, which the calling thread parses (its events would be held twice).
constexpr std::size_t kMaxParsedPerChunk = 4096;
// Rows of a thread's own session, at most: past it the session starts afresh at its next chunk.
constexpr std::size_t kMaxWorkerRows = 8192;
// The head of the log (its header lines) is parsed by the calling thread before the chunks.
constexpr std::size_t kHeadBytes = std::size_t{64} << 10;
constexpr std::uint32_t kNoLocalRow = 0xffffffffu;
// The largest chunk DLCHECK_PARSE_CHUNK may ask for.
constexpr std::uint64_t kMostChunkBytes = std::uint64_t{256} << 20;
// Bytes a thread reads at a time of its chunk.
constexpr std::size_t kBlockBytes = std::size_t{256} << 10;
// Bytes read at a time past a chunk's nominal end, looking for the line end it is cut at.
constexpr std::size_t kCutWindow = std::size_t{64} << 10;

// Reads `size` bytes at `offset` of `fd` into `into`: false where the file ended sooner (it
// shrank while being read) or a read failed.
bool ReadAt(int fd, char* into, std::size_t size, std::uint64_t offset) {
  while (size > 0) {
    const ssize_t got = pread(fd, into, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    into += got;
    size -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
  return true;
}

// The lines of bytes in memory, split as LineReader splits them where no CR stands alone: at
// each LF, the last line without one; a line longer than the cap is kTooLong.
class MemoryLines {
 public:
  MemoryLines(const char* begin, const char* end, std::size_t cap)
      : at_(begin), end_(end), cap_(cap) {}
  LineReader::Next Next(std::string_view& line) {
    if (at_ == end_) return LineReader::Next::kEnd;
    const auto* lf = static_cast<const char*>(std::memchr(at_, '\n', end_ - at_));
    const char* stop = lf != nullptr ? lf : end_;
    line = std::string_view(at_, static_cast<std::size_t>(stop - at_));
    at_ = lf != nullptr ? lf + 1 : end_;
    return line.size() > cap_ ? LineReader::Next::kTooLong : LineReader::Next::kLine;
  }
  // What is left, and the bytes of it taken in place (whole lines: LogSession::FeedPredicted).
  std::string_view Ahead() const { return {at_, static_cast<std::size_t>(end_ - at_)}; }
  void Skip(std::size_t bytes) { at_ += bytes; }

 private:
  const char* at_;
  const char* end_;
  std::size_t cap_;
};

// Whether [begin, end) holds a CR that no LF follows (a chunk ends at a line end, so a CR last
// in it is last in the file).
bool HasLoneCr(const char* begin, const char* end) {
  for (const char* p = begin; p < end; ++p) {
    p = static_cast<const char*>(std::memchr(p, '\r', static_cast<std::size_t>(end - p)));
    if (p == nullptr) return false;
    if (p + 1 == end || p[1] != '\n') return true;
  }
  return false;
}

// One line's outcome as a thread's session aggregated it, in 16 bytes (a chunk holds tens of
// thousands): a parsed event (the next of Recorder::events) or a repeat of the row's line.
struct Record {
  enum Bits : std::uint8_t { kParsed = 1, kExec = 2, kCacheHit = 4, kNested = 8, kStamped = 16 };
  double ms = 0;
  std::uint32_t row = kNoLocalRow;  // the thread's row (kNoLocalRow: a diagnostic)
  std::uint8_t bits = 0;
};

// Records what a thread's session aggregates, for the replay.
class Recorder : public EventListener {
 public:
  void OnEvent(const VerboseEvent& event, std::size_t row) override {
    records.push_back(
        {.row = row == Aggregator::kNoRow ? kNoLocalRow : static_cast<std::uint32_t>(row),
         .bits = Record::kParsed});
    events.push_back(event);
  }
  void OnRepeat(const LineMemo::Entry& repeat, double ms, std::optional<double> stamp) override {
    const auto bits = static_cast<std::uint8_t>(
        (repeat.exec ? Record::kExec : 0) | (repeat.cache_hit ? Record::kCacheHit : 0) |
        (repeat.nested ? Record::kNested : 0) | (stamp ? Record::kStamped : 0));
    records.push_back({.ms = ms, .row = static_cast<std::uint32_t>(repeat.row), .bits = bits});
    if (stamp) stamps.push_back(*stamp);
  }
  bool UsesTimestamps() const override { return uses_timestamps; }
  void Clear() {
    records.clear();
    events.clear();
    stamps.clear();
  }

  std::vector<Record> records;
  std::vector<VerboseEvent> events;  // of the parsed records, in order
  std::vector<double> stamps;        // of the stamped repeats, in order
  bool uses_timestamps = true;
};

// A piece of the file: [offset, offset + size), whole lines.
struct Chunk {
  std::uint64_t offset = 0;
  std::size_t size = 0;
};

// Reads a chunk a block at a time with pread (not a mapping of the file: its page faults and the
// unmapping's TLB shootdowns cost more than the copy read() makes anyway; blocks of 256 KiB, as
// LineReader, stay in the cache while their lines are parsed) and gives it as runs of whole lines.
class ChunkReader {
 public:
  explicit ChunkReader(std::size_t cap) : capacity_(cap + kBlockBytes + 1) {}
  void Start(int fd, const Chunk& chunk) {
    if (!bytes_) bytes_ = std::make_unique_for_overwrite<char[]>(capacity_);
    fd_ = fd;
    offset_ = chunk.offset;
    left_ = chunk.size;
    kept_ = end_ = 0;
    skipping_ = failed_ = false;
  }
  // The next run of whole lines, up to its last LF (the chunk's last line where the file ends
  // without one); empty at the chunk's end or where a read failed. A line longer than the buffer
  // (so longer than the cap) is given as its first bytes without their LF, which MemoryLines
  // calls too long, and the rest of it is dropped.
  std::string_view Next() {
    if (kept_ > 0) {
      std::memmove(bytes_.get(), bytes_.get() + kept_, end_ - kept_);
      end_ -= kept_;
      kept_ = 0;
    }
    while (true) {
      if (const void* lf = memrchr(bytes_.get(), '\n', end_); lf != nullptr) {
        kept_ = static_cast<std::size_t>(static_cast<const char*>(lf) - bytes_.get()) + 1;
        return {bytes_.get(), kept_};
      }
      if (left_ == 0 || end_ == capacity_) {
        skipping_ = left_ > 0;
        kept_ = end_;
        return {bytes_.get(), end_};
      }
      if (!ReadBlock()) return {};
    }
  }
  bool failed() const { return failed_; }

 private:
  bool ReadBlock() {
    const auto want =
        static_cast<std::size_t>(std::min<std::uint64_t>({left_, kBlockBytes, capacity_ - end_}));
    char* into = bytes_.get() + end_;
    if (!ReadAt(fd_, into, want, offset_)) {
      failed_ = true;
      return false;
    }
    offset_ += want;
    left_ -= want;
    end_ += want;
    if (skipping_) {  // the rest of a line too long, up to its LF
      const auto* lf = static_cast<const char*>(std::memchr(into, '\n', want));
      end_ = lf != nullptr ? static_cast<std::size_t>(into + want - (lf + 1)) : 0;
      if (lf != nullptr) std::memmove(bytes_.get(), lf + 1, end_);
      skipping_ = lf == nullptr;
    }
    return true;
  }

  std::size_t capacity_;
  std::unique_ptr<char[]> bytes_;
  int fd_ = -1;
  std::uint64_t offset_ = 0;
  std::uint64_t left_ = 0;
  std::size_t kept_ = 0;  // [0, kept_) was given; [kept_, end_) is a line's start
  std::size_t end_ = 0;
  bool skipping_ = false;
  bool failed_ = false;
};

}  // namespace

// The threads, their chunks and the replay (a friend of LogSession).
class ParallelFeed {
 public:
  static Status Feed(LogSession& session, LineReader& reader, std::string name,
                     const ParallelOptions& options, ParallelStats& stats);

 private:
  // Where a worker is: free to claim the next chunk, parsing it, or holding its records until
  // the calling thread takes them.
  enum class Phase { kFree, kParsing, kDone };
  struct Worker {
    explicit Worker(std::size_t cap) : reader(cap) {}
    std::unique_ptr<LogSession> session;
    Recorder recorder;
    std::vector<std::size_t> to_row;  // its rows -> the session's (the calling thread's)
    bool renew = true;                // start a new session before the next chunk
    std::uint64_t numbered = 0;       // lines its session was fed before this chunk
    // The chunk in hand.
    Phase phase = Phase::kFree;
    std::size_t index = 0;
    Chunk chunk;
    ChunkReader reader;
    // Parsed whole, within the records' bound, without a lone CR or a failed read.
    bool whole = false;
    std::uint64_t lines = 0;
    std::shared_ptr<const LineParser> start;  // the state it parsed the chunk from
    std::thread thread;
  };

  ParallelFeed(LogSession& session, int fd, std::uint64_t size, std::size_t cap,
               const ParallelOptions& options)
      : session_(session), fd_(fd), size_(size), cap_(cap), options_(options), here_(cap) {}
  bool Run(const std::string& name);
  std::uint64_t CutAfter(std::uint64_t at, std::uint64_t nominal);
  bool Claim(std::size_t& index, Chunk& chunk);
  Worker* Holder(std::size_t index);
  void NoteState();
  void Work(Worker& worker, const std::string& name);
  void Parse(Worker& worker, const std::string& name);
  bool Take(Worker& worker);
  void Replay(Worker& worker);
  bool FeedHere(const Chunk& chunk);
  template <typename Full>
  bool FeedChunk(LogSession& s, ChunkReader& reader, const Chunk& chunk, std::uint64_t numbered,
                 std::uint64_t& count, Full full) const;

  LogSession& session_;
  int fd_;
  std::uint64_t size_;
  std::size_t cap_;
  ParallelOptions options_;
  std::unique_ptr<char[]> window_ = std::make_unique_for_overwrite<char[]>(kCutWindow);
  std::uint64_t next_offset_ = 0;  // where the next chunk starts (under mutex_)
  std::size_t claimed_ = 0;        // chunks cut and claimed so far, in order (under mutex_)
  ChunkReader here_;               // the calling thread's reader
  ParallelStats stats_;
  std::vector<Worker> workers_;
  std::uint64_t lines_ = 0;  // lines fed to session_ so far
  std::shared_ptr<const LineParser> state_;
  bool stopping_ = false;
  bool exhausted_ = false;   // a claim found the end of the log, or no line end to cut at
  bool uncuttable_ = false;  // ... no line end to cut at: the rest is read on one thread
  std::mutex mutex_;
  std::condition_variable changed_;
};

ParallelOptions ParallelOptionsFor(int jobs) {
  ParallelOptions options;
  options.jobs = jobs;
  if (const char* value = std::getenv(kParallelChunkVariable); value != nullptr) {
    std::uint64_t bytes = 0;
    const char* end = value + std::strlen(value);
    const auto [ptr, ec] = std::from_chars(value, end, bytes);
    if (ec == std::errc() && ptr == end && bytes > 0) {
      options.min_bytes = bytes;
      // Each thread holds a chunk: no more than 256 MiB of it.
      options.chunk_bytes = static_cast<std::size_t>(std::min(bytes, kMostChunkBytes));
    }
  }
  return options;
}

Status FeedLog(LogSession& session, LineReader& reader, std::string name,
               const ParallelOptions& options, ParallelStats* stats) {
  ParallelStats ignored;
  return ParallelFeed::Feed(session, reader, std::move(name), options,
                            stats != nullptr ? *stats : ignored);
}

Status ParallelFeed::Feed(LogSession& session, LineReader& reader, std::string name,
                          const ParallelOptions& options, ParallelStats& stats) {
  const std::uint64_t size = options.jobs > 1 ? reader.WholeFileSize() : 0;
  if (size == 0 || size < options.min_bytes || size > SIZE_MAX || session.options_.strict ||
      !session.options_.memo || !session.layer_.empty()) {
    return session.FeedAll(reader, std::move(name));
  }
  ParallelFeed feed(session, reader.fd(), size, reader.line_cap(), options);
  session.StartInput(name);
  const bool whole = feed.Run(name);
  stats = feed.stats_;
  if (!whole) {
    // A lone CR, a line too long to cut at or a failed read: the lines fed so far split alike
    // both ways; LineReader reads the rest (and meets the failure, if it lasts).
    std::string_view line;
    for (std::uint64_t i = 0; i < feed.lines_; ++i) {
      if (reader.Read(line) == LineReader::Next::kEnd) break;
    }
    session.FeedRest(reader);
  }
  session.Finish();
  return reader.status();
}

// Where the piece of the file that starts at `at` ends: at + nominal, moved on past the next
// line end (read from the file, at most a line's cap ahead), or the end of the file where that is
// nearer. 0 where no line end is found within the cap or a read fails.
std::uint64_t ParallelFeed::CutAfter(std::uint64_t at, std::uint64_t nominal) {
  if (size_ - at <= nominal) return size_;
  std::uint64_t from = at + nominal;
  const std::uint64_t limit = std::min<std::uint64_t>(size_, from + cap_ + 1);
  while (from < limit) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(kCutWindow, limit - from));
    if (!ReadAt(fd_, window_.get(), want, from)) return 0;
    if (const void* lf = std::memchr(window_.get(), '\n', want); lf != nullptr) {
      return from + static_cast<std::uint64_t>(static_cast<const char*>(lf) - window_.get()) + 1;
    }
    from += want;
  }
  return limit == size_ ? size_ : 0;
}

// Claims the next chunk, cut at a line end, for the caller (under mutex_); false at the end of
// the log, or where it cannot be cut (uncuttable_).
bool ParallelFeed::Claim(std::size_t& index, Chunk& chunk) {
  if (exhausted_) return false;
  const std::uint64_t at = next_offset_;
  const std::uint64_t stop = at < size_ ? CutAfter(at, options_.chunk_bytes) : 0;
  if (stop == 0) {
    exhausted_ = true;
    uncuttable_ = at < size_;
    return false;
  }
  index = claimed_++;
  chunk = {at, static_cast<std::size_t>(stop - at)};
  next_offset_ = stop;
  return true;
}

// The worker that claimed chunk `index` (under mutex_).
ParallelFeed::Worker* ParallelFeed::Holder(std::size_t index) {
  for (Worker& w : workers_) {
    if (w.phase != Phase::kFree && w.index == index) return &w;
  }
  return nullptr;
}

// Here, after a chunk: the state the log has now, the best guess of where a later chunk starts.
void ParallelFeed::NoteState() {
  if (session_.parser_->parser().SameState(*state_)) return;
  auto now = std::make_shared<const LineParser>(session_.parser_->parser());
  std::lock_guard<std::mutex> lock(mutex_);
  state_ = std::move(now);
}

// Feeds the log; false where it stopped early (a lone CR, a failed read, a line too long to cut
// at), the lines_ before that point fed: LineReader then reads the rest.
bool ParallelFeed::Run(const std::string& name) {
  // The head, here: the header lines, before any chunk is parsed from the state they give.
  const std::uint64_t head_end = CutAfter(0, std::min(kHeadBytes, options_.chunk_bytes));
  if (head_end == 0 || !FeedHere({0, static_cast<std::size_t>(head_end)})) return false;
  next_offset_ = head_end;
  if (head_end == size_) return true;
  state_ = std::make_shared<const LineParser>(session_.parser_->parser());
  bool uses_timestamps = false;
  // A repeat's timestamp goes only to the listeners that hear repeats (the timeline of --format
  // trace): for no other is it read from its digits.
  for (const EventListener* l : session_.listeners_) {
    uses_timestamps |= l->UsesRepeats() && l->UsesTimestamps();
  }
  // The calling thread is one of the N: it parses the next chunk itself where no worker has
  // claimed it, and otherwise replays the worker's records. No more workers than chunks: each
  // holds a session and a chunk's records, so idle ones would cost memory and nothing else.
  const std::size_t chunks = size_ / std::max<std::size_t>(options_.chunk_bytes, 1) + 1;
  const std::size_t helpers = std::min(static_cast<std::size_t>(options_.jobs) - 1, chunks);
  workers_.reserve(helpers);
  for (std::size_t i = 0; i < helpers; ++i) workers_.emplace_back(cap_);
  for (Worker& w : workers_) {
    w.recorder.uses_timestamps = uses_timestamps;
    w.thread = std::thread([this, &w, &name] { Work(w, name); });
  }
  bool whole = true;
  for (std::size_t i = 0; whole; ++i) {
    Worker* holder = nullptr;
    Chunk chunk;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!options_.caller_parses) {
        changed_.wait(lock, [&] { return i < claimed_ || exhausted_; });
      }
      if (i == claimed_) {
        std::size_t index = 0;
        if (!Claim(index, chunk)) {
          whole = !uncuttable_;
          break;
        }
      } else {
        holder = Holder(i);
      }
    }
    whole = holder != nullptr ? Take(*holder) : FeedHere(chunk);
    NoteState();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.chunks = whole ? claimed_ : 0;
    stopping_ = true;
  }
  changed_.notify_all();
  for (Worker& w : workers_) w.thread.join();
  return whole;
}

void ParallelFeed::Work(Worker& worker, const std::string& name) {
  while (true) {
    bool claimed = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || worker.phase == Phase::kFree; });
      if (stopping_) return;
      claimed = Claim(worker.index, worker.chunk);
      if (claimed) {
        worker.start = state_;
        worker.phase = Phase::kParsing;
      }
    }
    // A calling thread that only replays waits on the claims, and on the end of the log.
    if (!options_.caller_parses) changed_.notify_all();
    if (!claimed) return;
    Parse(worker, name);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      worker.phase = Phase::kDone;
    }
    changed_.notify_all();
  }
}

// On a thread: parses the worker's chunk with its own session, from the state it was given.
void ParallelFeed::Parse(Worker& worker, const std::string& name) {
  if (worker.renew || !worker.session) {
    worker.session = std::make_unique<LogSession>(LogSessionOptions{
        .strict = false, .memo = true, .add_repeats = false, .dialect = session_.options_.dialect});
    worker.session->AddListener(&worker.recorder);
    worker.session->StartInput(name);
    worker.numbered = 0;
    worker.renew = false;
  }
  LogSession& s = *worker.session;
  JoiningParser& parser = *s.parser_;
  if (parser.has_pending() || !parser.parser().SameState(*worker.start)) {
    parser.ResetTo(*worker.start);
    s.ForgetMemo();
  }
  s.stats_ = {};
  worker.recorder.Clear();
  // A chunk of distinct lines is left to the calling thread (its events would be held twice).
  worker.whole = FeedChunk(s, worker.reader, worker.chunk, worker.numbered, worker.lines,
                           [&] { return worker.recorder.events.size() > kMaxParsedPerChunk; });
}

// Here: the records of the worker's chunk into the session, or the chunk parsed here where they
// cannot be; false where that parsing stopped early (FeedHere). The worker is then free.
bool ParallelFeed::Take(Worker& worker) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return worker.phase == Phase::kDone; });
  }
  bool whole = true;
  const JoiningParser& here = *session_.parser_;
  const bool usable =
      worker.whole && !here.has_pending() && !session_.aggregator_.holds_dispatch() &&
      here.parser().SameState(*worker.start) && !worker.session->aggregator_.capped();
  if (usable) {
    Replay(worker);
    ++stats_.replayed;
  } else {
    ++stats_.reparsed;
    worker.renew = true;
    whole = FeedHere(worker.chunk);
  }
  if (!worker.renew) {
    worker.numbered += worker.lines;
    if (worker.session->aggregator_.rows().size() > kMaxWorkerRows) worker.renew = true;
  }
  if (worker.renew) worker.to_row.clear();
  worker.recorder.Clear();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    worker.phase = Phase::kFree;
  }
  changed_.notify_all();
  return whole;
}

// The calls the session would have made had it parsed the chunk: the same Add and AddRepeat, in
// the order of the lines, with the line numbers of the log.
void ParallelFeed::Replay(Worker& worker) {
  LogSession& s = session_;
  LogSession& w = *worker.session;
  // The worker's line n is the log's line n + shift.
  const std::uint64_t shift = lines_ - worker.numbered;
  // A repeat goes only to the listeners that use repeats now (as LogSession::FeedPredicted).
  std::vector<EventListener*> hearing;
  for (EventListener* l : s.listeners_) {
    if (l->UsesRepeats()) hearing.push_back(l);
  }
  const Recorder& recorded = worker.recorder;
  std::size_t next_event = 0;
  std::size_t next_stamp = 0;
  for (const Record& r : recorded.records) {
    ++s.stats_.events;
    if (r.bits & Record::kParsed) {
      VerboseEvent& event = worker.recorder.events[next_event++];
      event.line += shift;
      const std::size_t row = s.aggregator_.Add(event);
      if (r.row != kNoLocalRow) {
        if (worker.to_row.size() <= r.row) worker.to_row.resize(r.row + 1, Aggregator::kNoRow);
        worker.to_row[r.row] = row;
      }
      for (EventListener* l : s.listeners_) l->OnEvent(event, row);
    } else {
      const LineMemo::Entry entry{worker.to_row[r.row], (r.bits & Record::kExec) != 0,
                                  (r.bits & Record::kCacheHit) != 0,
                                  (r.bits & Record::kNested) != 0};
      s.aggregator_.AddRepeat(entry, r.ms);
      if (hearing.empty()) continue;
      std::optional<double> stamp;
      if (r.bits & Record::kStamped) stamp = recorded.stamps[next_stamp++];
      for (EventListener* l : hearing) l->OnRepeat(entry, r.ms, stamp);
    }
  }
  s.stats_.lines += w.stats_.lines;
  s.stats_.info_lines += w.stats_.info_lines;
  for (const auto& [reason, count] : w.stats_.skipped) s.stats_.skipped[reason] += count;
  // The same template and header (most chunks): the memo stays, for the next chunk parsed here.
  if (s.parser_->parser().SameState(w.parser_->parser())) {
    s.parser_->TakePending(*w.parser_, shift);
  } else {
    s.parser_->TakeState(*w.parser_, shift);
    s.ForgetMemo();
  }
  s.saw_timestamp_ = s.saw_timestamp_ || w.saw_timestamp_;
  lines_ += worker.lines;
}

// Feeds the lines of `chunk` to `s`, a run of them at a time, numbered on from `numbered`;
// `count` is the lines fed. False where it stopped before a run holding a lone CR or one that
// could not be read (the runs before stay fed), or where `full()` said so after a parsed line.
template <typename Full>
bool ParallelFeed::FeedChunk(LogSession& s, ChunkReader& reader, const Chunk& chunk,
                             std::uint64_t numbered, std::uint64_t& count, Full full) const {
  reader.Start(fd_, chunk);
  count = 0;
  for (std::string_view run = reader.Next(); !run.empty(); run = reader.Next()) {
    if (HasLoneCr(run.data(), run.data() + run.size())) return false;
    MemoryLines lines(run.data(), run.data() + run.size(), cap_);
    std::string_view line;
    while (true) {
      std::uint64_t taken = 0;
      lines.Skip(s.FeedPredicted(lines.Ahead(), cap_, taken));
      count += taken;
      const LineReader::Next next = lines.Next(line);
      if (next == LineReader::Next::kEnd) break;
      ++count;
      if (next == LineReader::Next::kTooLong) {
        s.FeedTooLong(numbered + count);
      } else {
        s.Feed(line, numbered + count);
      }
      if (full()) return false;
    }
  }
  return !reader.failed();
}

// Feeds the lines of `chunk` to the session here, numbered on; false where a lone CR or a failed
// read stopped it (the lines before stay fed and counted).
bool ParallelFeed::FeedHere(const Chunk& chunk) {
  std::uint64_t count = 0;
  const bool whole = FeedChunk(session_, here_, chunk, lines_, count, [] { return false; });
  lines_ += count;
  return whole;
}

}  // namespace dlcheck::verbose
