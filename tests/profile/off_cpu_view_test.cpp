// SPDX-License-Identifier: Apache-2.0
// Issue 47: profile's off-CPU rows printed alike at 80 columns. Stacks hundreds of characters
// long share their root (python3;_start;...) and their scheduler end (...;schedule_[k]) and
// differ in the middle, which no cut that keeps an end can show. The human table reads a view
// merged by state and wait (each row a different place the program waited); JSON keeps each
// stack.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "profile/profile.h"
#include "profile/profile_report.h"
#include "report/printer.h"
#include "report/table_layout.h"
#include "support/lines.h"

namespace dlcheck::profile {
namespace {

Profile ThreadsThatWait() {
  const std::string root =
      "python3;_start;__libc_start_main;Py_BytesMain;Py_RunMain;PyRun_SimpleStringFlags;"
      "PyEval_EvalCode;_PyEval_EvalFrameDefault;";
  const std::string futex =
      ";pthread_cond_timedwait@@GLIBC_2.3.2;__futex_abstimed_wait_common;"
      "entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_futex_[k];do_futex_[k];"
      "futex_wait_[k];__futex_wait_[k];futex_do_wait_[k];schedule_[k];__schedule_[k]";
  const std::string sleep =
      ";clock_nanosleep@GLIBC_2.2.5;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];"
      "hrtimer_nanosleep_[k];do_nanosleep_[k];schedule_[k];__schedule_[k]";
  const std::string futex_wait = "futex_do_wait_[k] <- __futex_abstimed_wait_common";
  Profile p;
  p.off_cpu[{"S", root + "PyThread_acquire_lock_timed;worker_one" + futex}] = {0.50, 4, futex_wait};
  p.off_cpu[{"S", root + "PyThread_acquire_lock_timed;worker_two" + futex}] = {0.25, 2, futex_wait};
  p.off_cpu[{"S", root + "PyEval_RestoreThread;main_thread" + futex}] = {0.125, 1, futex_wait};
  p.off_cpu[{"S", root + "time_sleep" + sleep}] = {2.0, 1, "do_nanosleep_[k] <- clock_nanosleep"};
  p.off_cpu[{"R", root + "PyDict_SetItem;asm_exc_page_fault_[k];schedule_[k]"}] = {
      0.001, 1, "irqentry_exit_to_user_mode_[k] <- PyDict_SetItem"};
  return p;
}

TEST(OffCpuViewTest, RowsAreWhereTheProgramWaitedAndNeverPrintAlikeAt80Columns) {
  report::Report r;
  AddProfileTables(r, ThreadsThatWait(), {}, {.top = 20});
  std::ostringstream narrow;
  report::PrintTable(r, narrow, 80);
  const std::string text = narrow.str();
  const std::size_t from = text.find("Off-CPU time by where it waited");
  ASSERT_NE(from, std::string::npos) << text;
  EXPECT_EQ(text.find("Off-CPU time by stack"), std::string::npos) << text;
  EXPECT_EQ(text.find("print alike"), std::string::npos) << text;
  std::vector<std::string> rows;
  for (const std::string& line : testing::Lines(text.substr(from))) {
    if (line.starts_with("  S ") || line.starts_with("  R ")) rows.push_back(line);
    if (line.empty() && !rows.empty()) break;
  }
  ASSERT_EQ(rows.size(), 3u) << text;
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()).size(), rows.size()) << text;
  for (const std::string& row : rows) EXPECT_LE(report::DisplayWidth(row), 80u) << row;
  // The three futex stacks are one row: their time, switches and count added.
  EXPECT_NE(rows[1].find("0.8750"), std::string::npos) << text;
  EXPECT_NE(rows[1].find(" 7 "), std::string::npos) << text;
  EXPECT_NE(rows[1].find(" 3 "), std::string::npos) << text;
  // JSON keeps each stack, and has no view.
  std::ostringstream json;
  report::PrintJson(r, json);
  const nlohmann::json doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["off_cpu"].size(), 5u) << json.str();
  EXPECT_FALSE(doc.contains("off_cpu_by_wait"));
}

}  // namespace
}  // namespace dlcheck::profile
