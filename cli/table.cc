#include "cli/table.h"

#include <algorithm>
#include <cstdio>

#include "base/printable_text.h"

namespace las::cli {

void Table::Add(std::vector<std::string> row) {
  for (std::string& cell : row) cell = EscapeForTerminal(cell);
  rows_.push_back(std::move(row));
}

// Widths in terminal columns, not bytes ("zażółć" is 6 wide; a combining mark 0, a wide
// character 2): cells are well-formed UTF-8 after escaping.
void Table::Print() const {
  std::vector<size_t> widths;
  for (const auto& row : rows_) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  }
  for (const auto& row : rows_) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line.append(widths[i] - DisplayWidth(row[i]) + 2, ' ');
    }
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace las::cli
