// SPDX-License-Identifier: Apache-2.0
// dlcheck: what a CPU machine can do for deep learning, and what oneDNN does on it.
// main() adds the subcommands of the command table (cli/command_table.cpp, one file each) and
// turns errors into exit codes: usage errors, memory exhaustion and a report that could not be
// written all end here, with the named command's failure exit where its row has one.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <streambuf>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/exit_code.h"
#include "os/exit_status.h"
#include "report/printer.h"
#include "report/table_layout.h"

namespace {

using dlcheck::ExitCode;
using dlcheck::ToInt;

// A closed standard stream (`dlcheck ... >&-`) is held by /dev/null, so that no file dlcheck
// opens later takes its number (a report written into an input or a --raw-log). Standard output
// is held read-only: every write to it fails (EBADF) and EndOutput reports that.
void HoldClosedStandardStreams() {
  for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int held = open("/dev/null", fd == STDERR_FILENO ? O_WRONLY : O_RDONLY);
    if (held >= 0 && held != fd) close(held);  // the lowest free number is `fd` itself
  }
}

// std::cout's buffer: every write goes straight to stdio's stdout, as the synced default does
// (so it stays in order with anything written with printf), and the errno of the first write
// that fails is kept for EndOutput, however many flushes come after it.
class CheckedStdoutBuf : public std::streambuf {
 public:
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char byte = traits_type::to_char_type(c);
    return Put(&byte, 1) ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* text, std::streamsize n) override {
    return Put(text, static_cast<std::size_t>(n)) ? n : 0;
  }
  int sync() override {
    if (std::fflush(stdout) == 0) return 0;
    Record();
    return -1;
  }

 private:
  bool Put(const char* text, std::size_t n) {
    if (std::fwrite(text, 1, n, stdout) == n) return true;
    Record();
    return false;
  }
  void Record() {
    if (error_ == 0) error_ = errno != 0 ? errno : EIO;
  }
  int error_ = 0;
};

// Standard output written in full, or why not: the first failed write's errno, else the last
// flush's. A reader that went away (EPIPE, when SIGPIPE is ignored) is not an error to report:
// dlcheck ends quietly with the status a SIGPIPE gives, as `cat` does.
// `failure_exit`: the named command's row's (see Command::failure_exit).
int EndOutput(int exit_code, std::optional<int> failure_exit, const CheckedStdoutBuf& out) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = out.error() != 0 ? out.error() : errno;
  if (flushed && out.error() == 0 && std::ferror(stdout) == 0 && std::cout.good()) {
    return exit_code;
  }
  if (error == EPIPE) return dlcheck::os::ExitStatusForSignal(SIGPIPE);
  // No std::string here: this path may be reached with memory short.
  std::fputs("dlcheck: write error: ", stderr);
  std::fputs(error != 0 ? std::strerror(error) : "the report could not be written", stderr);
  std::fputs(" (standard output)\n", stderr);
  if (failure_exit) return *failure_exit;
  return exit_code != ToInt(ExitCode::kOk) ? exit_code : ToInt(ExitCode::kOutputError);
}

// Ends a command that ran out of memory: 7 (kUnsupported), a model worker too, whose parent reads
// it as dispatch::kWorkerOutOfMemoryExit (worker_protocol.h asserts the two are one).
int OutOfMemory(std::optional<int> failure_exit) {
  std::fputs(
      "dlcheck: out of memory: the work did not fit in the memory this process may use "
      "(see ulimit -v, the cgroup's memory.max); free memory, raise the limit or give a smaller "
      "input\n",
      stderr);
  return failure_exit.value_or(ToInt(ExitCode::kUnsupported));
}

// --help shows an option's value by one name (`N`, `FILE`, `LIST`), or the names it accepts:
// `--top N`, `--sort KEY:{time,execs,creates,name}`, never CLI11's validator internals
// (`INT:INT in [1 - 4096]`, `UINT:NONNEGATIVE`).
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* option) const override {
    if (!option->get_option_text().empty() || option->get_type_size() == 0) {
      return CLI::Formatter::make_option_opts(option);
    }
    const std::string full = option->get_type_name();
    std::string name = full.substr(0, full.find(':'));
    if (name == "INT" || name == "UINT") name = "N";
    if (name == "FLOAT") name = "NUMBER";
    std::string text = " " + name;
    if (const std::size_t choices = full.find(":{"); choices != std::string::npos) {
      text += full.substr(choices, full.find('}', choices) + 1 - choices);
    }
    const bool many = option->get_expected_max() == CLI::detail::expected_max_vector_size ||
                      (!option->nonpositional() && option->get_expected_max() > 1);
    if (many && name != "LIST") text += " ...";
    if (option->get_required()) text += " REQUIRED";
    return text;
  }
  // A positional of many values is `[name...]` in the usage line, whatever its limit (CLI11
  // writes `name(0x)` for a limited one: whatif's logs, limited so that CMD can follow them).
  std::string make_option_usage(const CLI::Option* option) const override {
    if (option->get_expected_max() <= 1) return CLI::Formatter::make_option_usage(option);
    const std::string usage = make_option_name(option, true) + "...";
    return option->get_required() ? usage : "[" + usage + "]";
  }
  // On a terminal, each line fitted to its width (see FitHelpLine).
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    const std::string help = CLI::Formatter::make_help(app, std::move(name), mode);
    const std::size_t width = dlcheck::report::StdoutTableWidth();
    if (width == 0) return help;
    std::string fitted;
    std::size_t start = 0;
    while (start < help.size()) {
      const std::size_t end = std::min(help.find('\n', start), help.size());
      fitted += FitHelpLine(help.substr(start, end - start), width);
      start = end + 1;
    }
    return fitted;
  }

 private:
  // A help line wider than the terminal, wrapped between words: an option's description under
  // its own first column (`  -f,--format FORMAT   output format ...`), other text under its
  // own indentation.
  static std::string FitHelpLine(const std::string& line, std::size_t width) {
    if (dlcheck::report::DisplayWidth(line) <= width) return line + '\n';
    const std::size_t lead = std::min(line.find_first_not_of(' '), line.size());
    std::size_t text_at = line.find("  ", lead);
    if (text_at != std::string::npos) text_at = line.find_first_not_of(' ', text_at);
    if (text_at == std::string::npos || text_at + kMinHelpText > width) text_at = lead;
    const std::string head = line.substr(0, text_at);
    const std::size_t indent = text_at == lead ? std::min(lead, width / 2) : text_at;
    const std::vector<std::string> lines = dlcheck::report::WrapText(
        line.substr(text_at), width - indent, dlcheck::report::WrapAt::kSpaces);
    std::string fitted;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      fitted += (i == 0 ? head : std::string(indent, ' ')) + lines[i] + '\n';
    }
    return fitted;
  }
  static constexpr std::size_t kMinHelpText = 24;  // a description narrower than this moves left
};

// Memory that runs out outside the command line's try (a thread of a command) ends the same way.
[[noreturn]] void Terminate() {
  try {
    if (std::exception_ptr current = std::current_exception()) std::rethrow_exception(current);
  } catch (const std::bad_alloc&) {
    std::_Exit(OutOfMemory(std::nullopt));
  } catch (...) {
  }
  std::fputs("dlcheck: internal error: terminated (this is a bug in dlcheck; please report it)\n",
             stderr);
  std::_Exit(ToInt(ExitCode::kFailure));
}

// Every row of the command table becomes a subcommand, in the table's order: named and described
// by the row, hidden where the row says, and from the moment it is named, a usage error ends with
// the row's failure exit. The row's Setup adds the rest.
void SetupCommands(CLI::App& app, int& exit_code) {
  for (const dlcheck::cli::Command& command : dlcheck::cli::Commands()) {
    CLI::App* sub = app.add_subcommand(std::string(command.name), std::string(command.help));
    if (command.kind == dlcheck::cli::Command::Kind::kHidden) sub->group("");
    if (const std::optional<int> failure = command.failure_exit) {
      sub->preparse_callback([&exit_code, code = *failure](std::size_t) { exit_code = code; });
    }
    command.setup(*sub, exit_code);
    dlcheck::cli::OneValuePerOccurrence(*sub);
  }
}

// Once the command line is read and before the command runs: what its report will be asked for
// (--columns) is checked against its document, so that no model or program runs for nothing.
void CheckColumnsOfNamedCommand(CLI::App& app) {
  for (CLI::App* named : app.get_subcommands()) {
    const dlcheck::cli::Command* command = dlcheck::cli::FindCommand(named->get_name());
    if (command != nullptr && command->document != nullptr) {
      dlcheck::cli::CheckColumnChoices(command->document());
    }
  }
}

// The failure exit of the command that was named, if its row has one.
std::optional<int> NamedCommandFailureExit(CLI::App& app) {
  const std::vector<CLI::App*> named = app.get_subcommands();
  if (named.empty()) return std::nullopt;
  const dlcheck::cli::Command* command = dlcheck::cli::FindCommand(named.front()->get_name());
  return command != nullptr ? command->failure_exit : std::nullopt;
}

// The first word of the command line that is not an option, where it names no command.
std::optional<std::string> UnknownCommandWord(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with('-')) continue;
    if (dlcheck::cli::FindCommand(arg) != nullptr) return std::nullopt;
    return std::string(arg);
  }
  return std::nullopt;
}

// Parses the command line and runs the command; every failure that reaches here becomes one
// `dlcheck: ...` line and an exit code.
int ParseAndRun(CLI::App& app, int argc, char** argv, int& exit_code) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    // `dlcheck nosuch --help`: the help of no command, so the unknown command is the answer.
    if (const std::optional<std::string> unknown = UnknownCommandWord(argc, argv)) {
      dlcheck::cli::PrintError(dlcheck::cli::UsageErrorText(
          app, std::vector<std::string>(argv + 1, argv + argc), CLI::ExtrasError({*unknown})));
      return exit_code;
    }
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    dlcheck::cli::PrintError(
        dlcheck::cli::UsageErrorText(app, std::vector<std::string>(argv + 1, argv + argc), e));
    return exit_code;
  } catch (const dlcheck::report::ColumnChoiceError& e) {
    // Thrown before the report is printed: nothing was written to standard output. A usage
    // error, with the named command's failure exit where it has one (check: UNKNOWN).
    dlcheck::cli::DiscardReportOutput();
    const std::vector<CLI::App*> ran = app.get_subcommands();
    const std::string name = ran.empty() ? std::string() : ran.front()->get_name() + " ";
    dlcheck::cli::PrintError(name.empty() ? std::string(e.what())
                                          : name.substr(0, name.size() - 1) + ": " + e.what() +
                                                " (see 'dlcheck " + name + "--help')");
    return NamedCommandFailureExit(app).value_or(ToInt(ExitCode::kUsage));
  } catch (const std::bad_alloc&) {
    return OutOfMemory(NamedCommandFailureExit(app));
  } catch (const dlcheck::report::OutputError& e) {
    dlcheck::cli::PrintError(e.what());
    return NamedCommandFailureExit(app).value_or(ToInt(ExitCode::kOutputError));
  } catch (const std::exception& e) {
    dlcheck::cli::PrintError(std::string("internal error: ") + e.what() +
                             " (this is a bug in dlcheck; please report it)");
    return ToInt(ExitCode::kFailure);
  }
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  HoldClosedStandardStreams();
  std::set_terminate(Terminate);
  CLI::App app{"dlcheck: what a CPU machine can do for deep learning, and what oneDNN does on it",
               "dlcheck"};
  app.require_subcommand(1);
  app.set_version_flag(
      "-V,--version", [] { return dlcheck::cli::VersionText(); },
      "print the versions of dlcheck, oneDNN, libcpuid and hwloc");
  app.footer("See dlcheck(1) for the output columns and the exit status.");
  app.formatter(std::make_shared<HelpFormatter>());

  // A usage error's code until a command runs (see commands.h); the command then sets its own.
  int exit_code = ToInt(ExitCode::kUsage);
  SetupCommands(app, exit_code);
  // The main app's parse-complete callback runs after every option is read, before the command.
  app.parse_complete_callback([&app] {
    dlcheck::cli::RefuseFileOnlyOnTerminal(app);
    CheckColumnsOfNamedCommand(app);
    dlcheck::cli::PrepareChosenFormat(app);
  });
  // Tables fit the terminal's width when standard output is one; a pipe gets the full table.
  dlcheck::report::SetPrintSettings({.width = dlcheck::report::StdoutTableWidth()});
  CheckedStdoutBuf checked;
  std::streambuf* const synced = std::cout.rdbuf(&checked);
  const int code = ParseAndRun(app, argc, argv, exit_code);
  // A command that ended by an exception (a printer's OutputError, memory) never reached
  // EndCommand: its -o FILE is left as it was.
  dlcheck::cli::DiscardReportOutput();
  const int end = EndOutput(code, NamedCommandFailureExit(app), checked);
  std::cout.rdbuf(synced);
  return end;
}
