// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading one large log on several threads with the result of one thread, byte for byte: the
// same rows in the same order, the same first lines, counts, sums and timeline.
//
//   Status s = FeedLog(session, reader, name, jobs);  // what session.FeedAll(reader, name) does
//
// A regular uncompressed file of at least kParallelMinBytes is cut at line ends into chunks of
// about kParallelChunkBytes, claimed in order by N threads: N - 1 workers and the calling thread,
// each reading its chunk into a buffer of its own (pread). The calling thread goes through the
// chunks in order: one nobody has claimed it parses itself into `session`, as FeedAll would; one a
// worker claimed it takes from the worker. A worker parses its chunk with a session of its own
// (parser, memo, aggregator) and records, line after line, what its session aggregated: the whole
// event where a line was parsed, the row, time and timestamp where the memo took it. The calling
// thread replays the records into `session`: the Add and AddRepeat calls one thread makes, in the
// order of the lines, so sums are added in the same order and the listeners hear the same calls. A
// worker parses a chunk from the parser state (template, header) the log had where the calling
// thread last finished a chunk; where that guess proves wrong (the log changed its template, a line
// held back for joining or a dispatch reason waiting for its create crosses the cut) or the chunk
// overflowed the records' bound (a log of distinct lines), the calling thread parses the chunk
// itself. Read on one thread, as FeedAll: pipes, compressed data, smaller files, --strict, sessions
// with a layer, and from where it is found, a CR not followed by LF (where LineReader ends a line
// depends on its buffer: each thread looks for one in a block before parsing it), a line longer
// than the line cap across a cut, or a chunk that cannot be read whole (the file shrank, a read
// failed): the lines before it stay fed and LineReader reads the rest of the log, as FeedAll reads
// it, from the line after them.

#include <cstdint>
#include <string>

#include "common/status.h"
#include "verbose/line_reader.h"
#include "verbose/log_session.h"

namespace dlcheck::verbose {

/// The least size of a file read in parallel.
inline constexpr std::uint64_t kParallelMinBytes = std::uint64_t{64} << 20;
/// The size of a chunk: what a thread parses between two hand-overs.
inline constexpr std::size_t kParallelChunkBytes = std::size_t{4} << 20;
/// The environment variable that sets both to a byte count (tests force chunks on small logs).
inline constexpr const char* kParallelChunkVariable = "DLCHECK_PARSE_CHUNK";

struct ParallelOptions {
  int jobs = 1;
  std::uint64_t min_bytes = kParallelMinBytes;
  std::size_t chunk_bytes = kParallelChunkBytes;
  /// Whether the calling thread parses the chunks no worker has claimed yet (false: it only
  /// replays, for tests of the replay).
  bool caller_parses = true;
};

/// The options for `jobs` threads, with kParallelChunkVariable's override when it is set.
ParallelOptions ParallelOptionsFor(int jobs);

/// How a log was read (for tests and benchmarks).
struct ParallelStats {
  std::size_t chunks = 0;    ///< chunks the log was cut into (0: read on one thread)
  std::size_t replayed = 0;  ///< chunks parsed by a worker and replayed
  std::size_t reparsed = 0;  ///< chunks parsed by a worker, then again by the calling thread
};

/// Feeds the whole of `reader` as one input named `name`, as LogSession::FeedAll does, on
/// options.jobs threads where the input allows (see above). Returns the reader's status.
Status FeedLog(LogSession& session, LineReader& reader, std::string name,
               const ParallelOptions& options, ParallelStats* stats = nullptr);

}  // namespace dlcheck::verbose
