#include "compiled_records.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>

#include "c_api.h"

namespace ov_executorch {
namespace {

std::mutex records_mutex;
std::map<uint64_t, std::string> records;  // by key: in the order the delegates were compiled
uint64_t last_key = 0;

}  // namespace

uint64_t record_compiled(std::string record) {
  std::lock_guard<std::mutex> lock(records_mutex);
  records.emplace(++last_key, std::move(record));
  return last_key;
}

void forget_compiled(uint64_t key) {
  std::lock_guard<std::mutex> lock(records_mutex);
  records.erase(key);
}

}  // namespace ov_executorch

long ov_executorch_compiled_delegate(size_t index, char* buffer, size_t size) {
  using ov_executorch::records;
  std::lock_guard<std::mutex> lock(ov_executorch::records_mutex);
  if (index >= records.size()) return -1;
  const std::string& record = std::next(records.begin(), static_cast<long>(index))->second;
  if (buffer && size > 0) {
    size_t n = std::min(size - 1, record.size());
    std::memcpy(buffer, record.data(), n);
    buffer[n] = '\0';
  }
  return static_cast<long>(record.size());
}
