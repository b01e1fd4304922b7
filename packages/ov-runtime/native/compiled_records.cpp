#include "compiled_records.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "c_api.h"

namespace ov_executorch {
namespace {

std::mutex records_mutex;
std::vector<std::string> records;

}  // namespace

void record_compiled(std::string record) {
  std::lock_guard<std::mutex> lock(records_mutex);
  records.push_back(std::move(record));
}

}  // namespace ov_executorch

long ov_executorch_compiled_delegate(size_t index, char* buffer, size_t size) {
  using ov_executorch::records;
  std::lock_guard<std::mutex> lock(ov_executorch::records_mutex);
  if (index >= records.size()) return -1;
  const std::string& record = records[index];
  if (buffer && size > 0) {
    size_t n = std::min(size - 1, record.size());
    std::memcpy(buffer, record.data(), n);
    buffer[n] = '\0';
  }
  return static_cast<long>(record.size());
}
