#include "ir_outline.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

namespace ov_executorch {
namespace {

struct Attribute {
  std::string_view name;
  std::string_view value;
};

struct Layer {
  std::string_view name;
  std::string_view type;
};

// A top-level edge's source and target.
struct Edge {
  uint64_t from_layer;
  uint64_t from_port;
  uint64_t to_layer;
};

constexpr const char* kWideLayerCost =
    "OpenVINO's CPU plugin compiles such a graph in time that grows with the square of the count";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A value as OpenVINO's reader parses it: decimal digits only. The converter
// writes ids and ports plainly; anything else (an entity, a sign) is refused
// rather than read otherwise than OpenVINO would.
std::optional<uint64_t> decimal(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

// A layer type as the converter writes it: an opset name, letters, digits and
// '_'. Anything else (an entity such as "&#80;", which pugixml decodes) is
// refused rather than read otherwise than OpenVINO would.
bool is_plain_name(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      return false;
    }
  }
  return true;
}

std::string_view attribute(const std::vector<Attribute>& attributes, std::string_view name) {
  for (const auto& attribute : attributes) {
    if (attribute.name == name) return attribute.value;  // the first, as OpenVINO's reader
  }
  return {};
}

class Scanner {
 public:
  Scanner(const char* xml, size_t size, std::string* error)
      : at_(xml), begin_(xml), end_(xml + size), error_(error) {}

  bool scan();

  std::vector<std::pair<uint64_t, Layer>> layers;  // top-level, in XML order
  std::vector<Edge> edges;                         // top-level

 private:
  bool fail(const std::string& what) {
    *error_ = "model XML " + what + " (at byte " + std::to_string(at_ - begin_) + ")";
    return false;
  }
  bool skip_past(const char* terminator, const char* what);
  bool start_tag();
  bool end_tag();
  void skip_spaces() {
    while (at_ < end_ && is_space(*at_)) ++at_;
  }
  std::string_view name() {
    const char* start = at_;
    while (at_ < end_ && !is_space(*at_) && *at_ != '/' && *at_ != '>' && *at_ != '=') ++at_;
    return {start, static_cast<size_t>(at_ - start)};
  }
  bool record(std::string_view element, const std::vector<Attribute>& attributes);
  template <typename Number>
  std::optional<Edge> count_edge(Number& number);

  const char* at_;
  const char* const begin_;
  const char* const end_;
  std::string* error_;
  std::vector<std::string_view> open_;  // the open elements, outermost first
  size_t elements_ = 0;
  bool seen_root_ = false;
  bool seen_layers_ = false;
  bool seen_edges_ = false;
  // Edges counted per <edges> block (a body's graph has its own ids).
  size_t edges_blocks_ = 0;
  std::map<std::pair<size_t, uint64_t>, size_t> fan_in_;
  std::map<std::tuple<size_t, uint64_t, uint64_t>, size_t> fan_out_;
};

bool Scanner::skip_past(const char* terminator, const char* what) {
  std::string_view rest(at_, static_cast<size_t>(end_ - at_));
  size_t found = rest.find(terminator);
  if (found == std::string_view::npos) return fail(std::string("ends inside ") + what);
  at_ += found + std::strlen(terminator);
  return true;
}

bool Scanner::scan() {
  // pugixml reads a UTF-16 or UTF-32 document (a byte-order mark, or NULs
  // spelling '<'), which this pass would read otherwise; the converter writes
  // UTF-8, which holds no NUL.
  if (std::memchr(begin_, '\0', static_cast<size_t>(end_ - begin_)) != nullptr) {
    at_ = static_cast<const char*>(std::memchr(begin_, '\0', static_cast<size_t>(end_ - begin_)));
    return fail("holds a NUL byte; the converter writes UTF-8 XML, which holds none");
  }
  std::string_view start(begin_, std::min<size_t>(2, static_cast<size_t>(end_ - begin_)));
  if (start == "\xff\xfe" || start == "\xfe\xff") {
    return fail("starts with a UTF-16 byte-order mark; the converter writes UTF-8");
  }
  while (at_ < end_) {
    const void* next = std::memchr(at_, '<', static_cast<size_t>(end_ - at_));
    if (next == nullptr) break;  // text after the last tag
    at_ = static_cast<const char*>(next) + 1;
    std::string_view rest(at_, static_cast<size_t>(end_ - at_));
    bool ok = true;
    // Each terminator is looked for after its opener, as XML (and pugixml) reads
    // them: "<!-->" opens a comment that does not close there.
    if (rest.substr(0, 1) == "?") {
      at_ += 1;
      ok = skip_past("?>", "a processing instruction");
    } else if (rest.substr(0, 3) == "!--") {
      at_ += 3;
      ok = skip_past("-->", "a comment");
    } else if (rest.substr(0, 8) == "![CDATA[") {
      at_ += 8;
      ok = skip_past("]]>", "a CDATA section");
    } else if (rest.substr(0, 1) == "!") {
      return fail("holds a declaration (<!DOCTYPE or <!ENTITY), which the converter never writes");
    } else if (rest.substr(0, 1) == "/") {
      ++at_;
      ok = end_tag();
    } else {
      ok = start_tag();
    }
    if (!ok) return false;
  }
  if (!open_.empty()) return fail("ends inside <" + std::string(open_.back()) + ">");
  if (!seen_root_) return fail("has no root element");
  return true;
}

bool Scanner::end_tag() {
  std::string_view element = name();
  skip_spaces();
  if (at_ >= end_ || *at_ != '>') return fail("has an end tag that does not close");
  ++at_;
  if (open_.empty() || open_.back() != element) {
    return fail("closes </" + std::string(element) + "> where " +
                (open_.empty() ? std::string("no element") : "<" + std::string(open_.back()) + ">") +
                " is open");
  }
  open_.pop_back();
  return true;
}

bool Scanner::start_tag() {
  std::string_view element = name();
  if (element.empty()) return fail("has a '<' that starts no element");
  std::vector<Attribute> attributes;
  bool closed = false;
  while (true) {
    skip_spaces();
    if (at_ >= end_) return fail("ends inside <" + std::string(element) + ">");
    if (*at_ == '>') {
      ++at_;
      break;
    }
    if (*at_ == '/') {
      if (at_ + 1 >= end_ || at_[1] != '>') return fail("has a '/' inside a start tag");
      at_ += 2;
      closed = true;
      break;
    }
    std::string_view key = name();
    skip_spaces();
    if (key.empty() || at_ >= end_ || *at_ != '=') {
      return fail("has an attribute without a value in <" + std::string(element) + ">");
    }
    ++at_;
    skip_spaces();
    if (at_ >= end_ || (*at_ != '"' && *at_ != '\'')) {
      return fail("has an unquoted attribute value in <" + std::string(element) + ">");
    }
    const char* quote = at_++;
    const void* close = std::memchr(at_, *quote, static_cast<size_t>(end_ - at_));
    if (close == nullptr) return fail("ends inside an attribute value");
    const char* value_end = static_cast<const char*>(close);
    attributes.push_back({key, {at_, static_cast<size_t>(value_end - at_)}});
    at_ = value_end + 1;
  }
  if (++elements_ > kMaxXmlElements) {
    return fail("holds more than " + std::to_string(kMaxXmlElements) +
                " elements, more than the converter writes for any model");
  }
  if (open_.size() + 1 > kMaxXmlDepth) {
    return fail("nests elements more than " + std::to_string(kMaxXmlDepth) +
                " deep, deeper than the converter writes for any model");
  }
  if (!record(element, attributes)) return false;
  if (!closed) open_.push_back(element);
  return true;
}

// Keeps the root's top-level layers and edges (OpenVINO reads the first
// <layers> and <edges> of <net>; the converter writes one of each).
bool Scanner::record(std::string_view element, const std::vector<Attribute>& attributes) {
  if (open_.empty()) {
    if (seen_root_) return fail("has a second root element <" + std::string(element) + ">");
    if (element != "net") return fail("root is <" + std::string(element) + ">, not <net>");
    seen_root_ = true;
    return true;
  }
  if (open_.size() == 1) {
    bool& seen = element == "layers" ? seen_layers_ : seen_edges_;
    if (element == "layers" || element == "edges") {
      if (seen) return fail("has a second <" + std::string(element) + "> in <net>");
      seen = true;
    }
    return true;
  }
  if (element == "edges") ++edges_blocks_;
  auto number = [&](std::string_view key) -> std::optional<uint64_t> {
    std::optional<uint64_t> value = decimal(attribute(attributes, key));
    if (!value) {
      fail("<" + std::string(element) + "> has " + std::string(key) + "=\"" +
           std::string(attribute(attributes, key)) + "\", not a decimal number");
    }
    return value;
  };
  if (element == "edge" && open_.back() == "edges") {
    std::optional<Edge> edge = count_edge(number);
    if (edge && open_.size() == 2) edges.push_back(*edge);  // net/edges: the top-level graph
    return edge.has_value();
  }
  if (open_.size() != 2) return true;
  if (open_[1] == "layers" && element == "layer") {
    std::optional<uint64_t> id = number("id");
    if (!id) return false;
    std::string_view type = attribute(attributes, "type");
    if (!is_plain_name(type)) {
      return fail("<layer> " + std::to_string(*id) + " has type=\"" + std::string(type) +
                  "\", not an operation's name");
    }
    layers.push_back({*id, {attribute(attributes, "name"), type}});
  }
  return true;
}

// Reads an edge of any graph (the top-level one or a body's) and counts it
// into its target's inputs and its source port's consumers; nullopt once
// refused.
template <typename Number>
std::optional<Edge> Scanner::count_edge(Number& number) {
  std::optional<uint64_t> from_layer = number("from-layer");
  std::optional<uint64_t> from_port = from_layer ? number("from-port") : std::nullopt;
  std::optional<uint64_t> to_layer = from_port ? number("to-layer") : std::nullopt;
  if (!to_layer) return std::nullopt;
  if (++fan_in_[{edges_blocks_, *to_layer}] > kMaxLayerInputs) {
    fail("has a layer (id " + std::to_string(*to_layer) + ") with more than " +
                std::to_string(kMaxLayerInputs) + " inputs; " + kWideLayerCost);
    return std::nullopt;
  }
  if (++fan_out_[{edges_blocks_, *from_layer, *from_port}] > kMaxLayerInputs) {
    fail("has a layer output (id " + std::to_string(*from_layer) + ") read by more than " +
         std::to_string(kMaxLayerInputs) + " layers; " + kWideLayerCost);
    return std::nullopt;
  }
  return Edge{*from_layer, *from_port, *to_layer};
}

const char* source_name(ResultSource kind) {
  switch (kind) {
    case ResultSource::kParameter:
      return "passes a Parameter through";
    case ResultSource::kConstant:
      return "reads a Const layer";
    case ResultSource::kEarlierResult:
      return "reads the same value as an earlier output";
    case ResultSource::kComputed:
      break;
  }
  return "reads a computed value";
}

}  // namespace

bool outline_ir(const char* xml, size_t size, IrOutline* outline, std::string* error) {
  Scanner scanner(xml, size, error);
  if (!scanner.scan()) return false;
  std::map<uint64_t, Layer> layers;
  for (const auto& [id, layer] : scanner.layers) {
    if (!layers.emplace(id, layer).second) {
      *error = "model XML has two layers of id " + std::to_string(id);
      return false;
    }
  }
  std::map<uint64_t, std::vector<const Edge*>> inputs;  // by target layer
  for (const Edge& edge : scanner.edges) {
    auto from = layers.find(edge.from_layer);
    if (from == layers.end() || !layers.count(edge.to_layer)) {
      *error = "model XML has an edge from layer " + std::to_string(edge.from_layer) +
          " to layer " + std::to_string(edge.to_layer) + ", which it does not both hold";
      return false;
    }
    if (from->second.type == "Result") {
      *error = "model XML has an edge from the Result '" + std::string(from->second.name) +
          "'; a Result feeds nothing";
      return false;
    }
    inputs[edge.to_layer].push_back(&edge);
  }
  *outline = {};
  std::vector<std::pair<uint64_t, uint64_t>> sources;  // of the Results so far
  for (const auto& [id, layer] : scanner.layers) {
    if (layer.type == "Parameter") ++outline->parameters;
    if (layer.type != "Result") continue;
    const std::vector<const Edge*>& edges = inputs[id];
    if (edges.size() != 1) {
      *error = "model XML's Result '" + std::string(layer.name) + "' has " +
          std::to_string(edges.size()) + " inputs; a Result has one";
      return false;
    }
    std::pair<uint64_t, uint64_t> source{edges[0]->from_layer, edges[0]->from_port};
    const Layer& from = layers[source.first];
    IrResult result{std::string(layer.name), std::string(from.name), ResultSource::kComputed};
    if (from.type == "Parameter") {
      result.kind = ResultSource::kParameter;
    } else if (from.type == "Const" || from.type == "Constant") {
      result.kind = ResultSource::kConstant;
    } else if (std::find(sources.begin(), sources.end(), source) != sources.end()) {
      result.kind = ResultSource::kEarlierResult;
    }
    sources.push_back(source);
    outline->results.push_back(std::move(result));
  }
  return true;
}

bool check_signature(const PayloadView& payload, const IrOutline& outline, std::string* error) {
  if (payload.inputs.size() != outline.parameters ||
      payload.outputs.size() != outline.results.size()) {
    *error = "payload signature lists " + std::to_string(payload.inputs.size()) + " inputs and " +
        std::to_string(payload.outputs.size()) + " outputs, but its IR has " +
        std::to_string(outline.parameters) + " Parameters and " +
        std::to_string(outline.results.size()) + " Results";
    return false;
  }
  for (size_t i = 0; i < outline.results.size(); ++i) {
    const IrResult& result = outline.results[i];
    if (result.kind == ResultSource::kComputed || payload.outputs[i] != kTensorArgument) continue;
    *error = "payload signature marks output " + std::to_string(i) +
        " 'T' (OpenVINO writes it into ExecuTorch's buffer), but its IR's Result '" +
        result.name + "' " + source_name(result.kind) + " ('" + result.source +
        "'), which OpenVINO does not write into a bound buffer; such an output is 'C'";
    return false;
  }
  return true;
}

}  // namespace ov_executorch
