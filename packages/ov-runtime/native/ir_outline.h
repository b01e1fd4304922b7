// One bounded pass over a payload's model XML before OpenVINO reads it.
//
// OpenVINO's IR reader builds the whole XML tree before it checks anything,
// and some of its steps grow faster than the text: 840 KB of nested
// <rt_info> elements exhausted 24 GB. So the pass refuses XML that nests
// deeper or holds more elements than the converter writes, and anything the
// converter never writes (a DOCTYPE, a second root, mismatched tags). It also
// reads, for the top-level graph, which layer each Result reads, so that the
// payload's signature can be checked against the IR (check_signature).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "payload.h"

namespace ov_executorch {

// The deepest element nesting accepted (the <net> root is depth 1). The
// converter's IR nests 6 deep (net/layers/layer/output/port/dim), and each
// control-flow body (If, Loop) nested in another adds 3: 40 nested bodies fit,
// where real models nest 0 to 2 (ExecuTorch's zoo, LLMs, torch.cond and
// while_loop measured; docs/payload.md).
constexpr size_t kMaxXmlDepth = 128;
// The most elements accepted: 160 times the largest IR measured (swin_t, 26k).
constexpr size_t kMaxXmlElements = size_t{1} << 22;

// The most inputs of one layer, and the most layers reading one output, in
// any graph of the IR (the top-level one or a body's). OpenVINO's CPU plugin
// compiles in time that grows with the square of them: a Concat of 1,000
// inputs took 0.6 s, of 4,000 6.4 s and of 20,000 over 120 s; 4,096 layers
// reading one Parameter took 11 to 25 s. A torch.cat of more tensors than
// this stays on ExecuTorch's CPU (ov_partition).
constexpr size_t kMaxLayerInputs = 4096;

// Where a top-level Result's value comes from, as OpenVINO reads the IR.
enum class ResultSource {
  kComputed,       // a layer the model computes
  kParameter,      // a Parameter: the model passes an input through
  kConstant,       // a Const layer
  kEarlierResult,  // the same layer output as an earlier Result
};

struct IrResult {
  std::string name;     // the Result layer's name
  std::string source;   // the name of the layer it reads
  ResultSource kind = ResultSource::kComputed;
};

struct IrOutline {
  size_t parameters = 0;         // top-level Parameter layers
  std::vector<IrResult> results;  // top-level Results, in the model's output order
};

// Scans `size` bytes of model XML at `xml`. Returns false and sets *error,
// naming the limit or the construct, when the XML exceeds kMaxXmlDepth or
// kMaxXmlElements, is not well formed, or holds what the converter never
// writes (a NUL byte, a UTF-16 byte-order mark); a top-level Result with other
// than one input, a layer with more than kMaxLayerInputs inputs or an output
// read by more layers, a layer type that is not a plain name, an edge
// from a layer the IR does not have, and a repeated layer id are refused too.
// Reads each byte once and keeps only the open elements and the top-level
// layers and edges.
bool outline_ir(const char* xml, size_t size, IrOutline* outline, std::string* error);

// Whether the payload's signature agrees with the IR: as many inputs as
// Parameters and outputs as Results, and every Result that the model does
// not compute (ResultSource other than kComputed) marked 'C', since OpenVINO
// writes nothing into an output buffer bound to such a Result (a 'T' output
// bound in place would read back zeros). Sets *error naming the output.
bool check_signature(const PayloadView& payload, const IrOutline& outline, std::string* error);

}  // namespace ov_executorch
