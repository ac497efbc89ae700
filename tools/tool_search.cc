#include "tools/tool_search.h"

#include "base/utf8.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "base/search_text.h"
#include "base/utf8.h"

namespace las::tools {
namespace {

bool Better(const SearchHit& a, const SearchHit& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.tool->qualified_name < b.tool->qualified_name;
}

void Rank(std::vector<SearchHit>& hits, size_t limit) {
  if (hits.size() > limit) {
    std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(limit), hits.end(),
                      Better);
    hits.resize(limit);
  } else {
    std::sort(hits.begin(), hits.end(), Better);
  }
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> QueryTokens(std::string_view query) {
  const std::string folded = FoldCase(query);
  std::vector<std::string> unique;
  for (std::string_view word : SearchWords(folded)) {
    if (std::find(unique.begin(), unique.end(), word) == unique.end()) unique.emplace_back(word);
  }
  return unique;
}

namespace {

// The query lower-cased without blanks around it: compared whole with tool names.
std::string WholeQuery(std::string_view query) {
  const size_t first = query.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  const size_t last = query.find_last_not_of(" \t\r\n");
  return FoldCase(query.substr(first, last - first + 1));
}

}  // namespace

std::vector<std::string> SchemaPropertyNames(std::string_view input_schema_json) {
  std::vector<std::string> names;
  const auto schema = nlohmann::json::parse(input_schema_json, nullptr, false);
  if (!schema.is_object()) return names;
  auto properties = schema.find("properties");
  if (properties == schema.end() || !properties->is_object()) return names;
  for (const auto& [name, value] : properties->items()) names.push_back(name);
  return names;
}

SearchKeys SearchKeysOf(const CatalogTool& tool) {
  SearchKeys keys;
  keys.ready = true;
  keys.name = FoldCase(tool.qualified_name);
  keys.title = FoldCase(tool.title);
  keys.description = FoldCase(tool.description.value_or(""));
  for (const auto& p : SchemaPropertyNames(tool.input_schema_json)) {
    // Las fills a credential argument; the client may not send it (docs/MANIFEST.md), so
    // it is no more searchable than tools/list shows it.
    if (tool.credential_templates.count(p) != 0) continue;
    keys.properties.push_back(FoldCase(p));
  }
  return keys;
}

std::vector<SearchHit> SearchTools(const std::vector<const CatalogTool*>& tools,
                                   std::string_view query, size_t limit) {
  const std::vector<std::string> tokens = QueryTokens(query);
  std::vector<SearchHit> hits;
  if (tokens.empty()) return hits;
  const std::string whole = WholeQuery(query);
  SearchKeys computed;
  for (const CatalogTool* tool : tools) {
    const SearchKeys* keys = &tool->search;
    if (!keys->ready) {
      computed = SearchKeysOf(*tool);
      keys = &computed;
    }
    int score = 0;
    bool all_hit = true;
    for (const auto& token : tokens) {
      int best = 0;
      if (Contains(keys->name, token)) {
        best = kNameHit;
      } else if (Contains(keys->description, token)) {
        best = kDescriptionHit;
      } else if (std::any_of(keys->properties.begin(), keys->properties.end(),
                             [&](const std::string& p) { return Contains(p, token); })) {
        best = kPropertyHit;
      } else if (Contains(keys->title, token)) {
        best = kTitleHit;
      }
      if (best == 0) {
        all_hit = false;
        break;
      }
      score += best;
    }
    if (keys->name == whole) score += kExactNameHit;
    if (all_hit) hits.push_back({tool, score});
  }
  Rank(hits, limit);
  return hits;
}

SearchIndex::SearchIndex(const std::vector<CatalogTool>& tools) {
  std::unordered_map<std::string, uint32_t> ids;
  auto add = [&](uint32_t tool, std::string_view word, int score) {
    auto [it, inserted] = ids.try_emplace(std::string(word), static_cast<uint32_t>(words_.size()));
    if (inserted) {
      words_.emplace_back(word);
      postings_.emplace_back();
    }
    auto& list = postings_[it->second];
    if (!list.empty() && list.back().tool == tool) {
      list.back().score = std::max(list.back().score, score);
    } else {
      list.push_back({tool, score});
    }
  };
  for (uint32_t i = 0; i < tools.size(); ++i) {
    const SearchKeys computed = tools[i].search.ready ? SearchKeys{} : SearchKeysOf(tools[i]);
    const SearchKeys& keys = tools[i].search.ready ? tools[i].search : computed;
    for (std::string_view w : SearchWords(keys.name)) add(i, w, kNameHit);
    for (std::string_view w : SearchWords(keys.title)) add(i, w, kTitleHit);
    for (std::string_view w : SearchWords(keys.description)) add(i, w, kDescriptionHit);
    for (const auto& p : keys.properties) {
      for (std::string_view w : SearchWords(p)) add(i, w, kPropertyHit);
    }
  }
}

std::vector<SearchHit> SearchIndex::Search(
    const std::vector<CatalogTool>& tools, std::string_view query, size_t limit,
    const std::function<bool(const CatalogTool&)>& visible) const {
  const std::vector<std::string> tokens = QueryTokens(query);
  std::vector<SearchHit> hits;
  if (tokens.empty() || tools.empty()) return hits;
  std::vector<int> score(tools.size(), 0);
  std::vector<int> best(tools.size());
  std::vector<char> alive(tools.size(), 1);
  for (const auto& token : tokens) {
    std::fill(best.begin(), best.end(), 0);
    for (size_t w = 0; w < words_.size(); ++w) {
      if (words_[w].find(token) == std::string::npos) continue;
      for (const Posting& p : postings_[w]) {
        if (p.tool < best.size()) best[p.tool] = std::max(best[p.tool], p.score);
      }
    }
    bool any = false;
    for (size_t i = 0; i < tools.size(); ++i) {
      if (best[i] == 0) alive[i] = 0;
      score[i] += best[i];
      any = any || alive[i] != 0;
    }
    if (!any) return hits;
  }
  const std::string whole = WholeQuery(query);
  for (size_t i = 0; i < tools.size(); ++i) {
    if (alive[i] == 0 || !visible(tools[i])) continue;
    // The index's keys hold the name lower-cased already (SearchKeysOf).
    const bool exact = tools[i].search.ready ? tools[i].search.name == whole
                                             : FoldCase(tools[i].qualified_name) == whole;
    hits.push_back({&tools[i], score[i] + (exact ? kExactNameHit : 0)});
  }
  Rank(hits, limit);
  return hits;
}

std::vector<SearchHit> SearchCatalog(const Catalog& catalog, std::string_view query, size_t limit,
                                     const std::function<bool(const CatalogTool&)>& visible) {
  return catalog.search_index().Search(catalog.tools(), query, limit, visible);
}

std::vector<std::string> NearestNames(const std::vector<const CatalogTool*>& tools,
                                      std::string_view name, size_t limit) {
  const std::string wanted = FoldCase(name.substr(0, 256));
  std::vector<std::pair<size_t, std::string>> scored;
  for (const CatalogTool* tool : tools) {
    const size_t distance = std::min(EditDistance(wanted, FoldCase(tool->qualified_name)),
                                     EditDistance(wanted, FoldCase(tool->tool)));
    scored.emplace_back(distance, tool->qualified_name);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].second);
  return out;
}

std::string Summary(const CatalogTool& tool) {
  constexpr size_t kMax = 160;
  constexpr std::string_view kEllipsis = "\xE2\x80\xA6";
  std::string_view text = tool.description ? std::string_view(*tool.description) : "";
  text = text.substr(0, text.find_first_of("\r\n"));  // a CRLF's CR too (probe IN2)
  if (text.size() <= kMax) return std::string(text);
  // The ellipsis counts too (SOURCES.md: ≤160 bytes).
  return std::string(Utf8PrefixOfAtMost(text, kMax - kEllipsis.size())) + std::string(kEllipsis);
}

}  // namespace las::tools
