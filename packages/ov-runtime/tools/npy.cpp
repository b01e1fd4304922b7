#include "npy.h"

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

namespace ov_executorch::tools {
namespace {

using executorch::aten::ScalarType;

// NumPy's type strings ('descr') and ExecuTorch's types; bfloat16 has no
// NumPy type and travels as raw bytes.
struct TypeName {
  const char* descr;
  ScalarType dtype;
  size_t size;
};
constexpr TypeName kTypes[] = {
    {"<f4", ScalarType::Float, 4}, {"<f8", ScalarType::Double, 8}, {"<f2", ScalarType::Half, 2},
    {"<i8", ScalarType::Long, 8},  {"<i4", ScalarType::Int, 4},    {"<i2", ScalarType::Short, 2},
    {"|i1", ScalarType::Char, 1},  {"|u1", ScalarType::Byte, 1},   {"|b1", ScalarType::Bool, 1},
};

constexpr char kMagic[] = "\x93NUMPY";

std::string field(const std::string& header, const std::string& key) {
  std::smatch match;
  std::regex pattern("'" + key + "'\\s*:\\s*('[^']*'|\\([^)]*\\)|True|False)");
  return std::regex_search(header, match, pattern) ? match[1].str() : std::string();
}

}  // namespace

bool read_npy(const std::string& path, NpyArray* array, std::string* error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    *error = "cannot open " + path;
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) {
    *error = path + " is not a .npy file (no \\x93NUMPY magic)";
    return false;
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  const size_t length_bytes = major == 1 ? 2 : 4;
  size_t header_length = 0;
  for (size_t i = 0; i < length_bytes && 8 + i < bytes.size(); ++i) {
    header_length |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  }
  const size_t start = 8 + length_bytes + header_length;
  if (major < 1 || major > 3 || start > bytes.size()) {
    *error = path + " has a bad .npy header";
    return false;
  }
  const std::string header = bytes.substr(8 + length_bytes, header_length);
  if (field(header, "fortran_order") != "False") {
    *error = path + " is in Fortran order; save it in C order (np.ascontiguousarray)";
    return false;
  }
  const std::string descr = field(header, "descr");
  const TypeName* type = nullptr;
  for (const auto& candidate : kTypes) {
    if (descr == std::string("'") + candidate.descr + "'") type = &candidate;
  }
  if (type == nullptr) {
    *error = path + " holds dtype " + descr +
        "; the runner reads float16/32/64, int8/16/32/64, uint8 and bool (little-endian)";
    return false;
  }
  array->dtype = type->dtype;
  array->shape.clear();
  std::string shape = field(header, "shape");
  std::stringstream dims(shape.size() > 2 ? shape.substr(1, shape.size() - 2) : "");
  size_t count = 1;
  for (std::string dim; std::getline(dims, dim, ',');) {
    if (dim.find_first_not_of(" ") == std::string::npos) continue;
    array->shape.push_back(std::stoll(dim));
    count *= static_cast<size_t>(array->shape.back());
  }
  if (bytes.size() - start != count * type->size) {
    *error = path + " holds " + std::to_string(bytes.size() - start) + " data bytes; its header (" +
        shape + ", " + descr + ") needs " + std::to_string(count * type->size);
    return false;
  }
  array->data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(start), bytes.end());
  return true;
}

bool write_npy(const std::string& path, ScalarType dtype, const std::vector<int64_t>& shape,
               const void* data, size_t nbytes, std::string* error) {
  const TypeName* type = nullptr;
  for (const auto& candidate : kTypes) {
    if (candidate.dtype == dtype) type = &candidate;
  }
  if (type == nullptr) {
    *error = std::string("an output of type ") + executorch::runtime::toString(dtype) +
        " has no .npy dtype";
    return false;
  }
  std::string dims;
  for (int64_t dim : shape) dims += std::to_string(dim) + ",";
  if (shape.size() > 1) dims.pop_back();
  std::string header = std::string("{'descr': '") + type->descr +
      "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // The data starts at a multiple of 64 bytes; the header ends with a newline.
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::ofstream file(path, std::ios::binary);
  const uint16_t length = static_cast<uint16_t>(header.size());
  file.write(kMagic, 6);
  file.put('\x01');
  file.put('\x00');
  file.put(static_cast<char>(length & 0xff));
  file.put(static_cast<char>(length >> 8));
  file << header;
  file.write(static_cast<const char*>(data), static_cast<std::streamsize>(nbytes));
  if (!file) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace ov_executorch::tools
