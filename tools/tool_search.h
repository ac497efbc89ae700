// Ranking and lookup over the catalog for the discovery tools (las__search, las__describe).
//
// Search: the query is split into lower-cased tokens (runs of letters and digits of any
// script; '_', punctuation, symbols and spaces separate: base/search_text.h). EVERY token
// must occur (case-insensitive substring) in one of a tool's fields, else the tool is not a
// result. A token scores by the best field it hits: the qualified name (1000) > the
// description (100) > a property name of the input schema (10) > the title (1). A tool's
// score is the sum over tokens; results come by score descending, then name ascending. An
// empty query matches nothing.
//
// Cost: a tool's lower-cased fields and property names are its SearchKeys, computed once
// when it enters the Catalog. SearchCatalog goes further: a token has no separators, so it
// can only occur inside one word (SearchWords) of a field; the catalog's SearchIndex maps
// each distinct word to the tools and best field it occurs in, and a query scans the
// distinct words instead of every tool's text. SearchTools (a plain list of tools, keys
// computed per query when not ready) gives the same results.
//
// Pure functions; the pointers must stay valid while the results are used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/catalog.h"

namespace las::tools {

// Signed text ranks above the title, which the child may change without a new release
// (docs/SOURCES.md): an unsigned title cannot lift a tool above one whose signed name,
// description or property names match (probe CE2).
inline constexpr int kNameHit = 1000;
inline constexpr int kDescriptionHit = 100;
inline constexpr int kPropertyHit = 10;
inline constexpr int kTitleHit = 1;
// A query that is exactly a tool's qualified name (any case, blanks around it) ranks that
// tool first (probe FC3: `echo__echo` split into two "echo" words and tied with every
// echo__ tool, the tie going to another).
inline constexpr int kExactNameHit = 1'000'000;

struct SearchHit {
  const CatalogTool* tool = nullptr;
  int score = 0;
};

// The query's words, lower-cased, each once (a word said twice does not count twice).
std::vector<std::string> QueryTokens(std::string_view query);

// The inverted index of a catalog's search keys (built by Catalog::search_index()).
class SearchIndex {
 public:
  // `tools` in catalog order; it is indexed by position.
  explicit SearchIndex(const std::vector<CatalogTool>& tools);
  // The hits among `tools` (the same vector, or an equal one) that `visible` accepts.
  std::vector<SearchHit> Search(const std::vector<CatalogTool>& tools, std::string_view query,
                                size_t limit,
                                const std::function<bool(const CatalogTool&)>& visible) const;

 private:
  struct Posting {
    uint32_t tool = 0;
    int score = 0;  // the best field of the tool this word occurs in
  };
  std::vector<std::string> words_;
  std::vector<std::vector<Posting>> postings_;  // parallel to words_
};

// SearchTools over the catalog's tools that `visible` accepts, through its index.
std::vector<SearchHit> SearchCatalog(const Catalog& catalog, std::string_view query, size_t limit,
                                     const std::function<bool(const CatalogTool&)>& visible);
// At most `limit` hits, best first.
std::vector<SearchHit> SearchTools(const std::vector<const CatalogTool*>& tools,
                                   std::string_view query, size_t limit);
// The `limit` names closest to `name` (edit distance, case-insensitive, against the
// qualified name and the bare tool name), nearest first, ties by name.
std::vector<std::string> NearestNames(const std::vector<const CatalogTool*>& tools,
                                      std::string_view name, size_t limit);
// The first line of the description (up to its first CR or LF), at most 160 bytes (cut at
// a UTF-8 boundary, "…").
std::string Summary(const CatalogTool& tool);
// The lower-cased search keys of `tool` (ready = true).
SearchKeys SearchKeysOf(const CatalogTool& tool);
// The names under the input schema's top-level "properties".
std::vector<std::string> SchemaPropertyNames(std::string_view input_schema_json);

}  // namespace las::tools
