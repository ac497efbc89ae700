// Aligned tables for human output: columns as wide as their widest cell (in terminal
// columns: base/printable_text.h DisplayWidth), separated by two spaces, the last column unpadded. Rows are printed on stdout.
// Cells are shown through EscapeForTerminal (base/printable_text.h): an agent id, a
// reason or a client name from the log never moves the cursor or forges a row.
#pragma once

#include <string>
#include <vector>

namespace las::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) { Add(std::move(header)); }
  void Add(std::vector<std::string> row);
  // Prints the header and every row.
  void Print() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace las::cli
