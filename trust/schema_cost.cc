#include "trust/schema_cost_internal.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace las::trust::internal {

namespace {

uint64_t Add(uint64_t a, uint64_t b) { return std::min(a + b, kManyEvaluations); }

// One schema node and its edges, by index into Graph::nodes.
struct Node {
  std::vector<size_t> in_place;     // applicators that keep the value
  // properties, by name: a member meets only those of its own name, however many in-place
  // siblings declare one (probe AD4: anyOf [{l: e}, {r: e}] is linear, not 2^depth).
  std::vector<std::pair<std::string, size_t>> member_named;
  std::vector<size_t> member_all;   // patternProperties, additionalProperties: all may apply
  std::vector<size_t> names;        // propertyNames: applies to each key (a string)
  std::vector<size_t> item_one;     // items (either form), prefixItems, additionalItems
  std::vector<size_t> item_all;     // contains
};

class Graph {
 public:
  explicit Graph(const RefResolver& resolve) : resolve_(resolve) {}

  // Every schema node reachable from `root`; root is index 0.
  void Build(const Json& root) {
    IndexOf(root);
    for (size_t i = 0; i < schemas_.size(); ++i) Edges(i);  // Edges may append schemas
  }

  // Nodes in an order where every in-place child comes before its parent; false when the
  // in-place edges form a cycle.
  bool ChildrenFirst(std::vector<size_t>& order) const {
    std::vector<size_t> pending(nodes_.size(), 0);  // in-place children not yet ordered
    std::vector<std::vector<size_t>> parents(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) {
      pending[i] = nodes_[i].in_place.size();
      for (const size_t c : nodes_[i].in_place) parents[c].push_back(i);
    }
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (pending[i] == 0) order.push_back(i);
    }
    for (size_t k = 0; k < order.size(); ++k) {
      for (const size_t p : parents[order[k]]) {
        if (--pending[p] == 0) order.push_back(p);
      }
    }
    return order.size() == nodes_.size();
  }

  const std::vector<Node>& nodes() const { return nodes_; }

 private:
  size_t IndexOf(const Json& schema) {
    auto [it, added] = index_.try_emplace(&schema, schemas_.size());
    if (added) {
      schemas_.push_back(&schema);
      nodes_.emplace_back();
    }
    return it->second;
  }

  void Edges(size_t i) {
    const Json& s = *schemas_[i];
    if (!s.is_object()) return;  // true / false: no applicators
    // Add one subschema (an object or a boolean) to `list` of node i. nodes_ may grow:
    // index it before taking the reference.
    auto add = [&](const Json& sub, std::vector<size_t> Node::*list) {
      if (!sub.is_object() && !sub.is_boolean()) return;
      const size_t c = IndexOf(sub);
      (nodes_[i].*list).push_back(c);
    };
    if (auto ref = s.find("$ref"); ref != s.end() && ref->is_string()) {
      if (const Json* target = resolve_(ref->get<std::string>())) add(*target, &Node::in_place);
    }
    for (const char* list : {"allOf", "anyOf", "oneOf"}) {
      if (auto it = s.find(list); it != s.end() && it->is_array()) {
        for (const Json& sub : *it) add(sub, &Node::in_place);
      }
    }
    for (const char* single : {"not", "if", "then", "else"}) {
      if (auto it = s.find(single); it != s.end()) add(*it, &Node::in_place);
    }
    if (auto it = s.find("dependencies"); it != s.end() && it->is_object()) {
      for (const auto& [name, dep] : it->items()) add(dep, &Node::in_place);
    }
    if (auto it = s.find("properties"); it != s.end() && it->is_object()) {
      for (const auto& [name, sub] : it->items()) {
        if (!sub.is_object() && !sub.is_boolean()) continue;
        const size_t c = IndexOf(sub);
        nodes_[i].member_named.emplace_back(name, c);
      }
    }
    if (auto it = s.find("patternProperties"); it != s.end() && it->is_object()) {
      for (const auto& [pattern, sub] : it->items()) add(sub, &Node::member_all);
    }
    if (auto it = s.find("additionalProperties"); it != s.end()) add(*it, &Node::member_all);
    if (auto it = s.find("propertyNames"); it != s.end()) add(*it, &Node::names);
    if (auto it = s.find("items"); it != s.end()) {
      if (it->is_array()) {
        for (const Json& sub : *it) add(sub, &Node::item_one);
      } else {
        add(*it, &Node::item_one);
      }
    }
    if (auto it = s.find("prefixItems"); it != s.end() && it->is_array()) {
      for (const Json& sub : *it) add(sub, &Node::item_one);
    }
    if (auto it = s.find("additionalItems"); it != s.end()) add(*it, &Node::item_one);
    if (auto it = s.find("contains"); it != s.end()) add(*it, &Node::item_all);
  }

  const RefResolver& resolve_;
  std::unordered_map<const Json*, size_t> index_;
  std::vector<const Json*> schemas_;
  std::vector<Node> nodes_;
};

}  // namespace

uint64_t WorstCaseEvaluations(const Json& root, const RefResolver& resolve, size_t max_depth) {
  Graph graph(resolve);
  graph.Build(root);
  std::vector<size_t> order;
  if (!graph.ChildrenFirst(order)) return kUnboundedEvaluations;
  const std::vector<Node>& nodes = graph.nodes();
  const size_t n = nodes.size();

  // Level 0: the paths that reach a value in place. Level d: the paths that reach one
  // value d members or items below, for an object (at_object) or an array (at_array) at
  // the top; `below` is the previous level's worst for either kind (level 0: the count).
  // A member's paths are counted per name (named: from `properties` of the node and its
  // in-place descendants) plus those that meet a member of any name (any_member:
  // patternProperties, additionalProperties, propertyNames): the worst member is the
  // name with the most, plus the rest.
  std::vector<uint64_t> below(n);
  for (const size_t i : order) {
    uint64_t paths = 1;
    for (const size_t c : nodes[i].in_place) paths = Add(paths, below[c]);
    below[i] = paths;
  }
  const std::vector<uint64_t> level0 = below;
  uint64_t worst = below[0];
  std::vector<uint64_t> at_object(n), at_array(n), any_member(n);
  std::vector<std::map<std::string, uint64_t, std::less<>>> named(n);
  for (size_t d = 1; d <= max_depth && worst < kManyEvaluations; ++d) {
    bool any = false;
    for (const size_t i : order) {
      const Node& node = nodes[i];
      std::map<std::string, uint64_t, std::less<>>& by_name = named[i];
      by_name.clear();
      for (const auto& [name, c] : node.member_named) by_name[name] = Add(by_name[name], below[c]);
      uint64_t any_name = 0;
      for (const size_t c : node.member_all) any_name = Add(any_name, below[c]);
      if (d == 1) {
        for (const size_t c : node.names) any_name = Add(any_name, level0[c]);
      }
      uint64_t one = 0;
      for (const size_t c : node.item_one) one = std::max(one, below[c]);
      uint64_t array = one;
      for (const size_t c : node.item_all) array = Add(array, below[c]);
      for (const size_t c : node.in_place) {
        for (const auto& [name, paths] : named[c]) by_name[name] = Add(by_name[name], paths);
        any_name = Add(any_name, any_member[c]);
        array = Add(array, at_array[c]);
      }
      uint64_t worst_name = 0;
      for (const auto& [name, paths] : by_name) worst_name = std::max(worst_name, paths);
      any_member[i] = any_name;
      at_object[i] = Add(worst_name, any_name);
      at_array[i] = array;
      any = any || at_object[i] != 0 || array != 0;
    }
    if (!any) break;  // nothing reaches this deep: nor deeper
    for (size_t i = 0; i < n; ++i) below[i] = std::max(at_object[i], at_array[i]);
    worst = std::max(worst, below[0]);
  }
  return worst;
}

}  // namespace las::trust::internal
