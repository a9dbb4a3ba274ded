// dlcheck dispatch: the same model under each oneDNN ISA cap and thread set, side by side.
#include "cli/commands.h"

namespace dlcheck::cli {

void SetupDispatch(CLI::App& app, int& exit_code) {
  (void)app;
  (void)exit_code;
}

}  // namespace dlcheck::cli
