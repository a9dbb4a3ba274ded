#include "report/printer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <type_traits>

namespace dlcheck::report {

std::string ValueText(const Value& value, std::string_view null_text, std::string_view yes,
                      std::string_view no) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return std::string(null_text);
        } else if constexpr (std::is_same_v<T, bool>) {
          return std::string(v ? yes : no);
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return fmt::format("{}", v);
        } else if constexpr (std::is_same_v<T, double>) {
          if (!std::isfinite(v)) return std::string(null_text);
          return fmt::format("{:.{}f}", v, value.precision);
        } else {
          return v;
        }
      },
      value.data);
}

std::optional<Format> ParseFormat(std::string_view name) {
  for (const FormatChoice& choice : kFormatChoices) {
    if (choice.name.size() != name.size()) continue;
    if (std::equal(name.begin(), name.end(), choice.name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == b;
        })) {
      return choice.format;
    }
  }
  return std::nullopt;
}

std::string_view FormatName(Format format) {
  for (const FormatChoice& choice : kFormatChoices) {
    if (choice.format == format) return choice.name;
  }
  return "table";
}

void Print(const Report& report, Format format, std::ostream& out) {
  switch (format) {
    case Format::kTable:
      PrintTable(report, out);
      break;
    case Format::kCsv:
      PrintCsv(report, out);
      break;
    case Format::kJson:
      PrintJson(report, out);
      break;
    case Format::kTrace:
      PrintTrace(report, out);
      break;
    case Format::kXlsx:
      PrintXlsx(report, out);
      break;
  }
}

}  // namespace dlcheck::report

namespace dlcheck::report {

std::unique_ptr<RowStream> StartTableStream(std::ostream& out, const Report& head,
                                            const Table& stream);
std::unique_ptr<RowStream> StartCsvStream(std::ostream& out, const Table& stream);
std::unique_ptr<RowStream> StartJsonStream(std::ostream& out, const Report& head,
                                           const Table& stream);

std::unique_ptr<RowStream> StartRowStream(Format format, std::ostream& out, const Report& head,
                                          const Table& stream) {
  switch (format) {
    case Format::kTable:
      return StartTableStream(out, head, stream);
    case Format::kCsv:
      return StartCsvStream(out, stream);
    case Format::kJson:
    case Format::kTrace:  // a streamed table has no trace shape; JSON is the closest
    case Format::kXlsx:   // a workbook cannot be streamed: the command refuses the pair
      return StartJsonStream(out, head, stream);
  }
  return nullptr;
}

}  // namespace dlcheck::report
