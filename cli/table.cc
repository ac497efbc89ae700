#include "cli/table.h"

#include <algorithm>
#include <cstdio>

#include "base/printable_text.h"
#include "base/utf8.h"

namespace las::cli {

void Table::Add(std::vector<std::string> row) {
  for (std::string& cell : row) cell = EscapeForTerminal(cell);
  rows_.push_back(std::move(row));
}

// Widths in characters, not bytes ("zażółć" is 6 wide): cells are well-formed UTF-8 after
// escaping. East Asian wide characters and emoji still take two columns on most terminals.
void Table::Print() const {
  std::vector<size_t> widths;
  for (const auto& row : rows_) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], CountCodePoints(row[i]));
  }
  for (const auto& row : rows_) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(widths[i] - CountCodePoints(row[i]) + 2, ' ');
    }
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace las::cli
