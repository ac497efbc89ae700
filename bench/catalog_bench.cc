// las_catalog_bench: `tools/list` and `las__search` latency over a synthetic catalog of
// 10,000 tools in 100 sources (docs/PERFORMANCE.md, "Snapshots, restart and the catalog").
//
//   las_catalog_bench [--sources S] [--tools T] [--iterations N] [--baseline-iterations B]
//
// The catalog is built as federation builds it (Catalog::AddSurface per source, each
// schema compiled for argument validation, each tool's tools/list entry and search keys
// precomputed). One source (src07) is disabled by a real SourceDisabled event in a RocksDB
// log in a temp dir, folded by LiveProjections; the real SourceGuard reads it. Measured,
// every sample kept (nearest-rank percentiles):
//   tools/list (no guards)        Catalog::ToolsListJson(), memoized;
//   tools/list (cached)           Gateway::ListTools' path: ToolsListCache::Get with the
//                                 SourceGuard and a guard that promises a constant listing
//                                 (SpecialPolicyGuard), copied into the returned string;
//   tools/list (rebuilt)          the same with one guard that makes no ListingGeneration
//                                 promise (GrantGuard today): every request asks Listed()
//                                 per tool and splices the precomputed entries — also the
//                                 cost of the first request after a source toggle;
//   las__search                   SearchCatalog(query, limit 10, ToolSourceEnabled) as
//                                 discovery_tools.cc calls it (the catalog's word index,
//                                 built by the first query, before timing), over a set of
//                                 queries.
//   baseline rows                 the same requests done as before issue 5's fix, in the
//                                 same run (B samples each, default 20): tools/list as one
//                                 nlohmann tree per request (every schema parsed, the whole
//                                 array dumped), search with the keys computed per query.
// Not measured: JSON-RPC framing, the pipe to the client, the 10 results' JSON.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_stats.h"
#include "bench/machine_facts.h"
#include "log/event_log.h"
#include "tools/catalog.h"
#include "tools/live_projections.h"
#include "tools/source_events.h"
#include "tools/source_guard.h"
#include "tools/source_ids.h"
#include "tools/tool_search.h"
#include "tools/tools_list_cache.h"

namespace {

using namespace las;
using Clock = std::chrono::steady_clock;

const char* const kVerbs[] = {"get", "list", "create", "update", "delete", "search", "run",
                              "check", "sync", "export"};
const char* const kNouns[] = {"issue", "page", "quota", "report", "message", "build", "proposal",
                              "schedule", "invoice", "dataset", "model", "hook", "release",
                              "metric", "secret", "branch", "ticket", "cost", "health", "mailbox"};

tools::Catalog BuildCatalog(int sources, int tools_per_source) {
  tools::Catalog catalog;
  for (int s = 0; s < sources; ++s) {
    trust::SurfaceBinding binding;
    binding.name = "src" + std::to_string(100 + s).substr(1);
    std::vector<trust::LiveTool> live;
    std::map<std::string, std::string> titles;
    for (int t = 0; t < tools_per_source; ++t) {
      const char* verb = kVerbs[(s + t) % 10];
      const char* noun = kNouns[(s * 7 + t) % 20];
      trust::LiveTool tool;
      tool.name = std::string(verb) + "_" + noun + "_" + std::to_string(t);
      titles[tool.name] = std::string(verb) + " " + noun;
      tool.description = "Use this tool to " + std::string(verb) + " a " + noun + " in source " +
                         binding.name + ". Returns the " + noun + " as JSON; errors name the "
                         "field that was wrong. Variant " + std::to_string(t) + ".";
      tool.input_schema_json =
          R"({"type":"object","properties":{")" + std::string(noun) +
          R"(_id":{"type":"string","description":"the id"},"limit":{"type":"integer","minimum":1},)"
          R"("verbose":{"type":"boolean"}},"required":[")" + std::string(noun) +
          R"(_id"],"additionalProperties":false})";
      trust::ToolBinding signed_tool;
      signed_tool.name = tool.name;
      binding.tools.push_back(signed_tool);
      live.push_back(std::move(tool));
    }
    auto left_out = catalog.AddSurface(binding, live);
    catalog.SetSurfaceExtras(binding.name, {}, {}, titles);
    if (!left_out.empty()) {
      std::fprintf(stderr, "las_catalog_bench: a schema did not compile: %s\n", left_out[0].first.c_str());
      std::exit(1);
    }
  }
  return catalog;
}

template <typename F>
bench::LatencySummary Measure(int iterations, F&& body) {
  std::vector<int64_t> samples;
  samples.reserve(iterations);
  for (int i = 0; i < iterations; ++i) {
    const auto t0 = Clock::now();
    body(i);
    samples.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
  }
  return bench::Summarize(samples);
}

// A guard like SpecialPolicyGuard (lists everything, promises so) or GrantGuard today
// (lists everything, promises nothing).
class ListAllGuard final : public tools::CallGuard {
 public:
  explicit ListAllGuard(bool promise) : promise_(promise) {}
  std::optional<tools::Refusal> BeforeCall(const tools::SessionInfo&, const tools::CatalogTool&,
                                           std::string_view) override {
    return std::nullopt;
  }
  std::optional<uint64_t> ListingGeneration(const tools::SessionInfo&) const override {
    if (!promise_) return std::nullopt;
    return 0;
  }

 private:
  bool promise_;
};

// tools/list as it was built before entries were precomputed.
std::string BaselineToolsList(const tools::Catalog& catalog, tools::CallGuard& guard,
                              const tools::SessionInfo& session) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& tool : catalog.tools()) {
    if (!guard.Listed(session, tool)) continue;
    nlohmann::ordered_json entry;
    entry["name"] = tool.qualified_name;
    if (tool.description) entry["description"] = *tool.description;
    entry["inputSchema"] = nlohmann::ordered_json::parse(tool.input_schema_json, nullptr, false);
    list.push_back(std::move(entry));
  }
  return nlohmann::ordered_json{{"tools", std::move(list)}}.dump(
      -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void Row(const char* label, const bench::LatencySummary& s) {
  std::printf("%-38s %7llu %10.1f %10.1f %10.1f %10.1f\n", label,
              static_cast<unsigned long long>(s.count), s.p50_us, s.p99_us, s.mean_us, s.max_us);
}

}  // namespace

int main(int argc, char** argv) {
  int sources = 100, per_source = 100, iterations = 200, baseline_iterations = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--sources") sources = std::atoi(argv[i + 1]);
    else if (flag == "--tools") per_source = std::atoi(argv[i + 1]);
    else if (flag == "--iterations") iterations = std::atoi(argv[i + 1]);
    else if (flag == "--baseline-iterations") baseline_iterations = std::atoi(argv[i + 1]);
    else { std::fprintf(stderr, "unknown flag %s\n", argv[i]); return 2; }
  }
  const auto facts = bench::ReadMachineFacts("/tmp");
  double load[3] = {0, 0, 0};
  (void)::getloadavg(load, 3);
  std::printf("las_catalog_bench\ncpus online    %ld\ncpu model      %s\nkernel         %s\n"
              "load average   %.2f %.2f %.2f\n",
              facts.online_cpus, facts.cpu_model.c_str(), facts.kernel.c_str(), load[0], load[1],
              load[2]);
  const auto b0 = Clock::now();
  tools::Catalog catalog = BuildCatalog(sources, per_source);
  const double build_ms = std::chrono::duration<double, std::milli>(Clock::now() - b0).count();
  std::printf("catalog        %zu tools in %d sources, built in %.0f ms (schemas compiled)\n",
              catalog.tools().size(), sources, build_ms);
  std::printf("tools/list     %.2f MiB of JSON\n\n", static_cast<double>(catalog.ToolsListJson().size()) / 1048576.0);
  std::printf("%-38s %7s %10s %10s %10s %10s\n", "operation", "n", "p50 us", "p99 us", "mean us",
              "max us");

  // One source disabled, through a real log and the real guard.
  char dir_template[] = "/tmp/las_catalog_bench.XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  if (dir == nullptr) { std::perror("mkdtemp"); return 1; }
  auto log = log::EventLog::Open(std::string(dir) + "/log");
  if (!log.ok()) { std::fprintf(stderr, "cannot open the log\n"); return 1; }
  if (!(*log)->Append({tools::SourceDisabledEvent("src07", "bench", "", "")}).ok()) return 1;
  tools::LiveProjections live(**log);
  if (!live.CatchUp().ok()) return 1;
  tools::SourceGuard source_guard(live, false);
  ListAllGuard constant_guard(true), no_promise_guard(false);
  tools::SessionInfo session;
  session.session_id = "s-1";
  session.agent_id = "agent";

  size_t sink = 0;
  catalog.ToolsListJson();  // memoized after the first request
  const auto memo = Measure(iterations, [&](int) { sink += catalog.ToolsListJson().size(); });
  Row("tools/list (no guards, memoized)", memo);

  tools::ToolsListCache cache;
  const std::vector<tools::CallGuard*> cached_guards = {&source_guard, &constant_guard};
  const size_t listed_size = cache.Get(catalog, cached_guards, session).size();
  const auto cached = Measure(iterations, [&](int) {
    std::string answer = cache.Get(catalog, cached_guards, session);  // ListTools returns a copy
    sink += answer.size();
  });
  Row("tools/list (guards, cached)", cached);

  const std::vector<tools::CallGuard*> rebuilt_guards = {&source_guard, &constant_guard,
                                                         &no_promise_guard};
  const auto rebuilt = Measure(iterations, [&](int) {
    std::string answer = cache.Get(catalog, rebuilt_guards, session);
    sink += answer.size();
  });
  Row("tools/list (guards, rebuilt)", rebuilt);

  const std::vector<std::string> queries = {"invoice", "create proposal", "sync dataset src42",
                                            "quota", "health check", "nothing-matches-this",
                                            "get_report_3", "mailbox"};
  const auto w0 = Clock::now();
  tools::SearchCatalog(catalog, "warm", 10, [](const tools::CatalogTool&) { return true; });
  std::printf("search index   built by the first query in %.1f ms\n",
              std::chrono::duration<double, std::milli>(Clock::now() - w0).count());
  std::vector<int64_t> all;
  for (const auto& query : queries) {
    std::vector<int64_t> samples;
    for (int i = 0; i < iterations; ++i) {
      const auto t0 = Clock::now();
      sink += tools::SearchCatalog(catalog, query, 10, [&](const tools::CatalogTool& tool) {
                return tools::ToolSourceEnabled(live, tool);
              }).size();
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
      samples.push_back(ns);
      all.push_back(ns);
    }
    const auto s = bench::Summarize(samples);
    const std::string label = "las__search \"" + query + "\"";
    Row(label.c_str(), s);
  }
  const auto search = bench::Summarize(all);
  Row("las__search (all queries)", search);

  // Baseline: the pre-fix algorithms, same machine, same moment.
  const auto baseline_list = Measure(baseline_iterations, [&](int) {
    sink += BaselineToolsList(catalog, source_guard, session).size();
  });
  Row("baseline tools/list (parse+dump)", baseline_list);
  std::vector<tools::CatalogTool> unprepared(catalog.tools().begin(), catalog.tools().end());
  for (auto& tool : unprepared) tool.search = tools::SearchKeys{};
  std::vector<int64_t> baseline_all;
  for (const auto& query : queries) {
    for (int i = 0; i < baseline_iterations; ++i) {
      const auto t0 = Clock::now();
      std::vector<const tools::CatalogTool*> visible;
      for (const auto& tool : unprepared) {
        if (tools::SourceEnabled(live, tools::SourceIdOf(tool))) visible.push_back(&tool);
      }
      sink += tools::SearchTools(visible, query, 10).size();
      baseline_all.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
    }
  }
  const auto baseline_search = bench::Summarize(baseline_all);
  Row("baseline las__search (all queries)", baseline_search);
  std::printf("ratio baseline/now (p50): tools/list rebuilt %.0fx, cached %.0fx; search %.0fx\n",
              baseline_list.p50_us / rebuilt.p50_us, baseline_list.p50_us / cached.p50_us,
              baseline_search.p50_us / search.p50_us);
  std::printf("\ntools/list as served: %.2f MiB (src07 disabled); %llu builds\n",
              static_cast<double>(listed_size) / 1048576.0,
              static_cast<unsigned long long>(cache.builds()));
  (*log).reset();
  std::filesystem::remove_all(dir);

  std::printf("\nTargets (issue 5)\n");
  std::printf("%s  tools/list under 5 ms: p50 %.3f ms cached, %.3f ms rebuilt per request "
              "(%.3f ms with no guards)\n",
              rebuilt.p50_us < 5000 && cached.p50_us < 5000 ? "PASS" : "MISS",
              cached.p50_us / 1000, rebuilt.p50_us / 1000, memo.p50_us / 1000);
  std::printf("%s  las__search under 1 ms p50: %.3f ms over all queries\n",
              search.p50_us < 1000 ? "PASS" : "MISS", search.p50_us / 1000);
  return sink == 0 ? 1 : 0;
}
