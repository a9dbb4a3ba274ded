// SPDX-License-Identifier: Apache-2.0
// dlcheck help [COMMAND]: COMMAND's manual page, dlcheck-COMMAND(1), as `man dlcheck-COMMAND`
// shows it (as `git help` and `perf help` do), or, where no page or no man reader is found, what
// `dlcheck COMMAND --help` prints; without COMMAND, what `dlcheck --help` prints. An unknown
// command is a usage error with the nearest name. `dlcheck help --list` (hidden) prints the
// report commands of the command table, one per line, for the tests, the schema check and
// `make schemas`.
//
// Which page: the one that came with this binary first, so that a build tree never shows an
// older installed page: `<dir of dlcheck>/../man/dlcheck-COMMAND.1` (the source tree, for
// build/dlcheck), then `<dir of dlcheck>/../share/man/man1/dlcheck-COMMAND.1[.gz]` (the install
// prefix: /usr/bin/dlcheck reads /usr/share/man/man1), each shown with `man -l FILE` (or
// `mandoc -a FILE` where man-db is not installed); then `man dlcheck-COMMAND` when man finds it
// on MANPATH. Each reader first renders the page with its pager set to cat, within 10 s
// (kReaderTimeoutS): one that hangs or fails is passed over, and with none left the option list
// follows. On a terminal the reader that rendered the page then replaces dlcheck (exec), so its
// pager, width and exit status are man's; elsewhere its rendering is printed.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/exit_code.h"
#include "os/subprocess.h"
#include "report/safe_text.h"

namespace dlcheck::cli {
namespace {

struct HelpOptions {
  std::string command;  ///< empty: dlcheck's own help
  bool list = false;
};

int PrintCommandList() {
  for (const std::string& name : CommandNames(Command::Kind::kReport)) std::cout << name << '\n';
  return ToInt(ExitCode::kOk);
}

bool IsRegularFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The page files that came with this binary, in the order they are tried.
std::vector<std::string> PageFiles(const std::string& page) {
  const std::string self = os::SelfExecutable();
  const std::string bin = self.substr(0, self.rfind('/') + 1);
  return {bin + "../man/" + page + ".1", bin + "../share/man/man1/" + page + ".1",
          bin + "../share/man/man1/" + page + ".1.gz"};
}

// Replaces dlcheck by `argv`, found on PATH, in the state a program started from a shell has
// (default SIGPIPE, no blocked signal); returns only when it could not be started.
void ExecReader(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::cout.flush();
  signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execvp(args[0], args.data());
}

// How long a man reader may take to render a page (or to find one) before dlcheck gives up on
// it and prints the option list: a reader that hangs (a stuck man-db lock, a broken groff, a
// `man` on PATH that never ends) must not hang `dlcheck help`.
constexpr double kReaderTimeoutS = 10;
// The most of a rendered page that is kept (the longest page renders to about 40 KiB).
constexpr std::size_t kMaxPageBytes = std::size_t{4} << 20;

// Runs `argv` (a man reader) within kReaderTimeoutS with its pager replaced by cat; its output,
// or nullopt when it could not be started, failed, timed out or printed nothing.
std::optional<std::string> Rendered(const std::vector<std::string>& argv) {
  os::Spec spec;
  spec.argv = argv;
  spec.search_path = true;
  spec.keep_stderr_tail = true;  // "No manual entry for ..." is not dlcheck's to print
  spec.timeout_s = kReaderTimeoutS;
  spec.env = {{"MANPAGER", "cat"}, {"PAGER", "cat"}};
  std::string text;
  const StatusOr<os::Outcome> outcome = os::RunProcess(spec, [&text](std::string_view piece) {
    if (text.size() < kMaxPageBytes) text.append(piece.substr(0, kMaxPageBytes - text.size()));
  });
  if (!outcome.ok() || !outcome->ok() || text.empty()) return std::nullopt;
  return text;
}

// Shows `argv`'s rendering of a page: on a terminal by replacing dlcheck with the reader (its
// pager, width and exit status are man's) once it has rendered the page in time; else the
// rendering itself. False when it did not render the page in time.
bool ShowWith(const std::vector<std::string>& argv) {
  const std::optional<std::string> text = Rendered(argv);
  if (!text) return false;
  if (isatty(STDOUT_FILENO) == 1) ExecReader(argv);
  std::cout << *text << std::flush;
  return true;
}

// Whether `man` finds `page` on its search path (MANPATH, /usr/share/man, ...) in time.
bool ManFinds(const std::string& page) {
  return Rendered({"man", "-w", page}).has_value();
}

// Shows dlcheck-COMMAND(1); false when no page or no reader was found, or none rendered the page
// within kReaderTimeoutS.
bool ShowManPage(const std::string& command) {
  const std::string page = "dlcheck-" + command;
  for (const std::string& file : PageFiles(page)) {
    if (!IsRegularFile(file)) continue;
    return ShowWith({"man", "-l", file}) || ShowWith({"mandoc", "-a", file});
  }
  return ManFinds(page) && ShowWith({"man", page});
}

int PrintHelp(CLI::App& app, const std::string& command) {
  CLI::App* about = &app;
  if (!command.empty()) {
    const std::vector<std::string> names = CommandNames(Command::Kind::kUtility);
    if (std::find(names.begin(), names.end(), command) == names.end()) {
      PrintError("help: unknown command '" + report::ShortInput(command) + "'" +
                 DidYouMean(command, names) + " (see 'dlcheck --help')");
      return ToInt(ExitCode::kUsage);
    }
    if (ShowManPage(command)) return ToInt(ExitCode::kOk);
    PrintError(
        "help: no manual page dlcheck-" + command +
        "(1) found (next to this dlcheck, or by man), or no man or mandoc showed it within " +
        std::to_string(static_cast<int>(kReaderTimeoutS)) + " s; the options of 'dlcheck " +
        command + " --help' follow");
    about = app.get_subcommand(command);
  }
  // App::help would print the help of the command being run (this one): the formatter is asked.
  std::cout << about->get_formatter()->make_help(
      about, about == &app ? app.get_name() : app.get_name() + " " + about->get_name(),
      CLI::AppFormatMode::Normal);
  return ToInt(ExitCode::kOk);
}

}  // namespace

void SetupHelp(CLI::App& subcommand, int& exit_code) {
  auto o = std::make_shared<HelpOptions>();
  subcommand.add_option("command", o->command, "the command whose manual page to show")
      ->type_name("COMMAND");
  subcommand.add_flag("--list", o->list, "print the report commands, one per line")->group("");
  subcommand.footer(
      "dlcheck help COMMAND shows the manual page dlcheck-COMMAND(1), as man does; dlcheck "
      "COMMAND --help lists its options.");
  CLI::App& app = *subcommand.get_parent();
  subcommand.callback([&app, o, &exit_code] {
    exit_code = o->list ? PrintCommandList() : PrintHelp(app, o->command);
  });
}

}  // namespace dlcheck::cli
