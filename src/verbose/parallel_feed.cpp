#include "verbose/parallel_feed.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
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

// Whether [begin, end) of a text ending at `text_end` holds a CR that no LF follows.
bool HasLoneCr(const char* begin, const char* end, const char* text_end) {
  for (const char* p = begin; p < end; ++p) {
    p = static_cast<const char*>(std::memchr(p, '\r', static_cast<std::size_t>(end - p)));
    if (p == nullptr) return false;
    if (p + 1 == text_end || p[1] != '\n') return true;
  }
  return false;
}

// One line's outcome as a thread's session aggregated it.
struct Record {
  std::uint32_t row = kNoLocalRow;  // the thread's row (kNoLocalRow: a diagnostic)
  std::uint32_t event = 0;          // a parsed event: its index in Recorder::events
  bool parsed = false;
  bool exec = false;
  bool cache_hit = false;
  bool nested = false;
  bool stamped = false;
  double ms = 0;
  double stamp = 0;
};

// Records what a thread's session aggregates, for the replay.
class Recorder : public EventListener {
 public:
  void OnEvent(const VerboseEvent& event, std::size_t row) override {
    records.push_back(
        {.row = row == Aggregator::kNoRow ? kNoLocalRow : static_cast<std::uint32_t>(row),
         .event = static_cast<std::uint32_t>(events.size()),
         .parsed = true});
    events.push_back(event);
  }
  void OnRepeat(const LineMemo::Entry& repeat, double ms, std::optional<double> stamp) override {
    records.push_back({.row = static_cast<std::uint32_t>(repeat.row),
                       .exec = repeat.exec,
                       .cache_hit = repeat.cache_hit,
                       .nested = repeat.nested,
                       .stamped = stamp.has_value(),
                       .ms = ms,
                       .stamp = stamp.value_or(0)});
  }
  bool UsesTimestamps() const override { return uses_timestamps; }
  void Clear() {
    records.clear();
    events.clear();
  }

  std::vector<Record> records;
  std::vector<VerboseEvent> events;
  bool uses_timestamps = true;
};

struct Chunk {
  const char* begin = nullptr;
  const char* end = nullptr;
};

}  // namespace

// The threads, their chunks and the replay (a friend of LogSession).
class ParallelFeed {
 public:
  static Status Feed(LogSession& session, LineReader& reader, std::string name,
                     const ParallelOptions& options, ParallelStats& stats);

 private:
  struct Worker {
    std::unique_ptr<LogSession> session;
    Recorder recorder;
    std::vector<std::size_t> to_row;  // its rows -> the session's (the calling thread's)
    bool renew = true;                // start a new session before the next chunk
    std::uint64_t numbered = 0;       // lines its session was fed before this chunk
    // The chunk in hand.
    Chunk chunk;
    bool assigned = false;
    bool done = false;
    bool overflowed = false;
    bool lone_cr = false;  // the chunk holds a CR not followed by LF: not parsed
    std::uint64_t lines = 0;
    std::shared_ptr<const LineParser> start;  // the state it parsed the chunk from
    std::thread thread;
  };

  ParallelFeed(LogSession& session, const char* data, std::size_t size, std::size_t cap,
               const ParallelOptions& options)
      : session_(session), data_(data), size_(size), cap_(cap), options_(options) {}
  bool Run(const std::string& name);
  bool CutNext();
  void Work(Worker& worker, const std::string& name);
  void Parse(Worker& worker, const std::string& name);
  void Assign(Worker& worker, std::size_t chunk);
  bool Take(Worker& worker, std::size_t chunk);
  void Replay(Worker& worker);
  void FeedHere(const char* begin, const char* end);
  void Release(const char* begin, const char* end) const;

  LogSession& session_;
  const char* data_;
  std::size_t size_;
  std::size_t cap_;
  ParallelOptions options_;
  const char* head_end_ = nullptr;  // where the chunks start
  std::vector<Chunk> chunks_;       // the calling thread's; a worker reads its own copy
  ParallelStats stats_;
  std::vector<Worker> workers_;
  std::uint64_t lines_ = 0;  // lines fed to session_ so far
  std::shared_ptr<const LineParser> state_;
  bool stopping_ = false;
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
      options.chunk_bytes = static_cast<std::size_t>(bytes);
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
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, reader.fd(), 0);
  if (map == MAP_FAILED) return session.FeedAll(reader, std::move(name));
  ParallelFeed feed(session, static_cast<const char*>(map), static_cast<std::size_t>(size),
                    reader.line_cap(), options);
  session.StartInput(name);
  const bool whole = feed.Run(name);
  stats = feed.stats_;
  munmap(map, size);
  if (!whole) {
    // A lone CR: the lines fed so far split alike both ways; LineReader reads the rest.
    std::string_view line;
    for (std::uint64_t i = 0; i < feed.lines_; ++i) {
      if (reader.Read(line) == LineReader::Next::kEnd) break;
    }
    session.FeedRest(reader);
  }
  session.Finish();
  return reader.status();
}

// Cuts the next chunk, ending at a line end; false at the end of the log. Cut as they are handed
// out, not all at first: reading the cut's line end maps its pages (a whole large folio at a
// time on Linux 6), which would stay resident until their chunk is done.
bool ParallelFeed::CutNext() {
  const char* end = data_ + size_;
  const char* at = chunks_.empty() ? head_end_ : chunks_.back().end;
  if (at >= end) return false;
  const char* stop = end;
  if (static_cast<std::size_t>(end - at) > options_.chunk_bytes) {
    const char* cut = at + options_.chunk_bytes;
    const auto* lf = static_cast<const char*>(std::memchr(cut, '\n', end - cut));
    stop = lf != nullptr ? lf + 1 : end;
  }
  chunks_.push_back({at, stop});
  return true;
}

// Feeds the log; false where it stopped before a chunk (or the head) with a lone CR, the lines_
// before it fed.
bool ParallelFeed::Run(const std::string& name) {
  // The head, here: the header lines, before any chunk is parsed from the state they give.
  const char* head_end = data_ + std::min({size_, kHeadBytes, options_.chunk_bytes});
  if (head_end < data_ + size_) {
    const auto* lf = static_cast<const char*>(
        std::memchr(head_end, '\n', static_cast<std::size_t>(data_ + size_ - head_end)));
    head_end = lf != nullptr ? lf + 1 : data_ + size_;
  }
  if (HasLoneCr(data_, head_end, data_ + size_)) return false;
  FeedHere(data_, head_end);
  Release(data_, head_end);
  head_end_ = head_end;
  if (!CutNext()) return true;
  state_ = std::make_shared<const LineParser>(session_.parser_->parser());
  bool uses_timestamps = false;
  for (const EventListener* l : session_.listeners_) uses_timestamps |= l->UsesTimestamps();
  // No more workers than chunks: each holds a session and a chunk's records, so idle ones
  // (--jobs 191 on a 64 MiB log) would cost memory and nothing else.
  const std::size_t chunks = size_ / std::max<std::size_t>(options_.chunk_bytes, 1) + 1;
  workers_ = std::vector<Worker>(std::min(static_cast<std::size_t>(options_.jobs), chunks));
  for (Worker& w : workers_) {
    w.recorder.uses_timestamps = uses_timestamps;
    w.thread = std::thread([this, &w, &name] { Work(w, name); });
  }
  Assign(workers_[0], 0);
  for (std::size_t i = 1; i < workers_.size() && CutNext(); ++i) Assign(workers_[i], i);
  // Chunk i is worker i % jobs's; once taken, that worker gets chunk i + jobs.
  bool whole = true;
  for (std::size_t i = 0; i < chunks_.size() && whole; ++i) {
    Worker& w = workers_[i % workers_.size()];
    whole = Take(w, i);
    Release(chunks_[i].begin, chunks_[i].end);
    if (whole && CutNext()) Assign(w, chunks_.size() - 1);
  }
  stats_.chunks = whole ? chunks_.size() : 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (Worker& w : workers_) w.thread.join();
  return whole;
}

void ParallelFeed::Assign(Worker& worker, std::size_t chunk) {
  // The state the log has now: the best guess of where a later chunk starts.
  if (!session_.parser_->parser().SameState(*state_)) {
    state_ = std::make_shared<const LineParser>(session_.parser_->parser());
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    worker.chunk = chunks_[chunk];
    worker.start = state_;
    worker.assigned = true;
    worker.done = false;
  }
  changed_.notify_all();
}

void ParallelFeed::Work(Worker& worker, const std::string& name) {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || (worker.assigned && !worker.done); });
      if (!worker.assigned || worker.done) return;
    }
    Parse(worker, name);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      worker.done = true;
    }
    changed_.notify_all();
  }
}

// On a thread: parses the worker's chunk with its own session, from the state it was given.
void ParallelFeed::Parse(Worker& worker, const std::string& name) {
  if (worker.renew || !worker.session) {
    worker.session = std::make_unique<LogSession>(LogSessionOptions{.strict = false, .memo = true});
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
  worker.overflowed = false;
  worker.lines = 0;
  // Looked for here, not in a pass over the log before the threads start: the chunk's bytes are
  // read once more while they are at hand.
  worker.lone_cr = HasLoneCr(worker.chunk.begin, worker.chunk.end, data_ + size_);
  if (worker.lone_cr) return;
  MemoryLines lines(worker.chunk.begin, worker.chunk.end, cap_);
  std::uint64_t count = 0;
  std::string_view line;
  // Numbered on from the session's earlier chunks: its memo tells lines apart by number.
  while (true) {
    std::uint64_t taken = 0;
    lines.Skip(s.FeedPredicted(lines.Ahead(), cap_, taken));
    count += taken;
    const LineReader::Next next = lines.Next(line);
    if (next == LineReader::Next::kEnd) break;
    ++count;
    if (next == LineReader::Next::kTooLong) {
      s.FeedTooLong(worker.numbered + count);
    } else {
      s.Feed(line, worker.numbered + count);
    }
    if (worker.recorder.events.size() > kMaxParsedPerChunk) {
      worker.overflowed = true;
      break;
    }
  }
  worker.lines = count;
}

// Here: the chunk's records into the session, or the chunk parsed here where they cannot be;
// false (nothing fed) where the chunk holds a lone CR.
bool ParallelFeed::Take(Worker& worker, std::size_t chunk) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return worker.done; });
    worker.assigned = false;
  }
  if (worker.lone_cr) return false;
  const JoiningParser& here = *session_.parser_;
  const bool usable =
      !worker.overflowed && !here.has_pending() && !session_.aggregator_.holds_dispatch() &&
      here.parser().SameState(*worker.start) && !worker.session->aggregator_.capped();
  if (usable) {
    Replay(worker);
    ++stats_.replayed;
  } else {
    FeedHere(chunks_[chunk].begin, chunks_[chunk].end);
    worker.renew = true;
  }
  if (!worker.renew) {
    worker.numbered += worker.lines;
    if (worker.session->aggregator_.rows().size() > kMaxWorkerRows) worker.renew = true;
  }
  if (worker.renew) worker.to_row.clear();
  worker.recorder.Clear();
  return true;
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
  for (const Record& r : worker.recorder.records) {
    ++s.stats_.events;
    if (r.parsed) {
      VerboseEvent& event = worker.recorder.events[r.event];
      event.line += shift;
      const std::size_t row = s.aggregator_.Add(event);
      if (r.row != kNoLocalRow) {
        if (worker.to_row.size() <= r.row) worker.to_row.resize(r.row + 1, Aggregator::kNoRow);
        worker.to_row[r.row] = row;
      }
      for (EventListener* l : s.listeners_) l->OnEvent(event, row);
    } else {
      const LineMemo::Entry entry{worker.to_row[r.row], r.exec, r.cache_hit, r.nested};
      s.aggregator_.AddRepeat(entry, r.ms);
      const std::optional<double> stamp = r.stamped ? std::optional<double>(r.stamp) : std::nullopt;
      for (EventListener* l : hearing) l->OnRepeat(entry, r.ms, stamp);
    }
  }
  s.stats_.lines += w.stats_.lines;
  s.stats_.info_lines += w.stats_.info_lines;
  for (const auto& [reason, count] : w.stats_.skipped) s.stats_.skipped[reason] += count;
  s.parser_->TakeState(*w.parser_, shift);
  s.ForgetMemo();
  s.saw_timestamp_ = s.saw_timestamp_ || w.saw_timestamp_;
  lines_ += worker.lines;
}

// Feeds the lines of [begin, end) to the session here, numbered on.
void ParallelFeed::FeedHere(const char* begin, const char* end) {
  MemoryLines lines(begin, end, cap_);
  std::string_view line;
  while (true) {
    std::uint64_t taken = 0;
    lines.Skip(session_.FeedPredicted(lines.Ahead(), cap_, taken));
    lines_ += taken;
    const LineReader::Next next = lines.Next(line);
    if (next == LineReader::Next::kEnd) break;
    ++lines_;
    if (next == LineReader::Next::kTooLong) {
      session_.FeedTooLong(lines_);
    } else {
      session_.Feed(line, lines_);
    }
  }
}

// Gives the pages of [begin, end) back (they stay in the page cache): the resident size stays
// that of the chunks in hand, whatever the size of the log.
void ParallelFeed::Release(const char* begin, const char* end) const {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const auto from = reinterpret_cast<std::uintptr_t>(begin) & ~(page - 1);
  const auto to = reinterpret_cast<std::uintptr_t>(end) & ~(page - 1);
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

}  // namespace dlcheck::verbose
