// SPDX-License-Identifier: Apache-2.0
// dlcheck schema COMMAND: the JSON Schema of COMMAND's --format json document, generated from
// its declaration (report/contract.h, each beside its builder; the command table names it);
// schemas/ holds the same text, checked in. Hidden from --help: it is for `make schemas` and for
// scripts that validate a document.
#include <iostream>

#include "cli/commands.h"
#include "report/contract.h"

namespace dlcheck::cli {
namespace {

std::vector<std::string> DocumentNames() {
  std::vector<std::string> names;
  for (const Command& command : Commands()) {
    if (command.document != nullptr) names.emplace_back(command.name);
  }
  return names;
}

}  // namespace

void SetupSchema(CLI::App& subcommand, int& exit_code) {
  auto command = std::make_shared<std::string>();
  CLI::App* const sub = &subcommand;
  sub->add_option("command", *command, "the command whose document it describes")
      ->required()
      ->check(CLI::IsMember(DocumentNames()));
  sub->callback([command, &exit_code] {
    std::cout << report::contract::SchemaText(FindCommand(*command)->document());
    std::cout.flush();
    exit_code = std::cout ? ToInt(ExitCode::kOk) : ToInt(ExitCode::kOutputError);
  });
}

}  // namespace dlcheck::cli
