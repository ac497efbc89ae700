// Aligned tables for human output: columns as wide as their widest cell (counted in
// bytes), separated by two spaces, the last column unpadded. Rows are printed on stdout.
#pragma once

#include <string>
#include <vector>

namespace las::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Prints the header and every row.
  void Print() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace las::cli
