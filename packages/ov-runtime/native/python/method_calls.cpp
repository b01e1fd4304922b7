// ov_runtime.native._method_calls: the Python facade's per-call path in C++.
//
// A call whose inputs are described as the last accepted call's were (the same
// tensor type, shapes, dtypes, dense and in CPU memory; the same scalars) needs
// no check the facade has not made already: only each tensor's data pointer is
// written before ov_executorch_runner_execute runs, with the GIL released, and
// each output is copied into a new tensor. Any other call is not taken: the
// facade checks and writes it in Python, with its error messages, accepts its
// inputs here and runs it with execute_written (ov_runtime.facade.running).
//
// Tensors are read through their Python attributes (no libtorch), and output
// tensors are made by the torch.empty_strided given at construction.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../c_api.h"

namespace nb = nanobind;

namespace {

using ExecuteFunction = int (*)(ov_executorch_runner*, const char*, const ov_executorch_value*,
                                size_t, ov_executorch_value*, size_t, size_t*);

// The bytes of a value that describe it: everything before its data pointer.
constexpr size_t kDescription = offsetof(ov_executorch_value, data);

// An input as last accepted: a tensor's shape and dtype, or a scalar.
struct Accepted {
  nb::object shape;   // torch.Size; null for a scalar or an input not taken
  nb::object dtype;
  nb::object scalar;  // the scalar's value; null for a tensor
};

// The tensor attributes read at each call, made once.
struct Names {
  nb::str shape{"shape"}, dtype{"dtype"}, layout{"layout"}, is_cpu{"is_cpu"},
      is_contiguous{"is_contiguous"}, is_neg{"is_neg"}, is_conj{"is_conj"}, data_ptr{"data_ptr"};
};

// What a tensor output of one description becomes: empty_strided's arguments.
struct Layout {
  bool known = false;
  unsigned char description[kDescription];
  nb::tuple arguments;  // (sizes, strides)
  nb::dict keywords;    // {"dtype": dtype}
};

class MethodCalls {
 public:
  MethodCalls(uintptr_t execute, uintptr_t runner, std::string method, uintptr_t inputs,
              size_t num_inputs, uintptr_t outputs, size_t num_outputs, std::vector<bool> dense,
              nb::object tensor_type, nb::object strided, nb::object empty_strided,
              nb::dict dtypes)
      : execute_(reinterpret_cast<ExecuteFunction>(execute)),
        runner_(reinterpret_cast<ov_executorch_runner*>(runner)),
        method_(std::move(method)),
        inputs_(reinterpret_cast<ov_executorch_value*>(inputs)),
        num_inputs_(num_inputs),
        outputs_(reinterpret_cast<ov_executorch_value*>(outputs)),
        num_outputs_(num_outputs),
        dense_(std::move(dense)),
        accepted_(num_inputs),
        layouts_(num_outputs),
        tensor_type_(std::move(tensor_type)),
        strided_(std::move(strided)),
        empty_strided_(std::move(empty_strided)),
        dtypes_(std::move(dtypes)) {}

  // Records `values` (checked and written by the facade) as the inputs the
  // next calls are compared with.
  void accept(nb::sequence values) {
    for (size_t index = 0; index < num_inputs_; ++index) {
      nb::object value = values[index];
      Accepted& accepted = accepted_[index];
      accepted = Accepted{};
      if (value.type().is(tensor_type_)) {
        if (dense_[index]) {
          accepted.shape = value.attr(names_.shape);
          accepted.dtype = value.attr(names_.dtype);
        }
      } else if (PyBool_Check(value.ptr()) || PyLong_CheckExact(value.ptr()) ||
                 PyFloat_CheckExact(value.ptr())) {
        accepted.scalar = value;
      }
    }
  }

  // Takes no call until the next accept: the inputs are being written anew.
  void forget() {
    for (Accepted& accepted : accepted_) {
      accepted = Accepted{};
    }
  }

  // None when the call is not taken; else (code, outputs), outputs None when
  // code (an ExecuTorch Error code) is not 0.
  nb::object run(nb::handle values) {
    if (!PyList_CheckExact(values.ptr()) && !PyTuple_CheckExact(values.ptr())) {
      return nb::none();
    }
    // A tuple of our own holds each input until the method returns: another
    // thread, or Python code that reading a tensor's attributes runs, may
    // change the caller's list meanwhile (the tuple given is itself, shared).
    nb::tuple held = nb::steal<nb::tuple>(PySequence_Tuple(values.ptr()));
    if (static_cast<size_t>(PyTuple_GET_SIZE(held.ptr())) != num_inputs_) {
      return nb::none();
    }
    for (size_t index = 0; index < num_inputs_; ++index) {
      if (!take(index, PyTuple_GET_ITEM(held.ptr(), index))) {
        return nb::none();
      }
    }
    return execute_written();
  }

  // (code, outputs) of the method on its inputs as written, by run() or by the
  // facade; outputs None when code (an ExecuTorch Error code) is not 0.
  nb::object execute_written() {
    size_t count = 0;
    int code;
    {
      nb::gil_scoped_release released;
      code = execute_(runner_, method_.c_str(), inputs_, num_inputs_, outputs_, num_outputs_,
                      &count);
    }
    if (code != 0) {
      return nb::make_tuple(code, nb::none());
    }
    nb::list outputs;
    for (size_t index = 0; index < count; ++index) {
      outputs.append(output(index));
    }
    return nb::make_tuple(0, outputs);
  }

 private:
  // Whether input `index` is described as accepted; a tensor's data pointer is
  // then written.
  bool take(size_t index, PyObject* value) {
    const Accepted& accepted = accepted_[index];
    if (accepted.scalar.is_valid()) {
      return Py_TYPE(value) == Py_TYPE(accepted.scalar.ptr()) &&
             PyObject_RichCompareBool(value, accepted.scalar.ptr(), Py_EQ) == 1;
    }
    if (!accepted.shape.is_valid() || Py_TYPE(value) != (PyTypeObject*)tensor_type_.ptr()) {
      return false;
    }
    nb::handle tensor(value);
    try {
      if (!tensor.attr(names_.dtype).is(accepted.dtype) ||
          !tensor.attr(names_.layout).is(strided_) || !tensor.attr(names_.is_cpu).is(Py_True) ||
          !tensor.attr(names_.shape).equal(accepted.shape) ||
          !tensor.attr(names_.is_contiguous)().is(Py_True) ||
          !tensor.attr(names_.is_neg)().is(Py_False) ||
          !tensor.attr(names_.is_conj)().is(Py_False)) {
        return false;
      }
      inputs_[index].data = PyLong_AsVoidPtr(tensor.attr(names_.data_ptr)().ptr());
    } catch (const nb::python_error&) {
      return false;  // a nested tensor has no shape: the facade says why
    }
    return true;
  }

  nb::object output(size_t index) {
    const ov_executorch_value& value = outputs_[index];
    switch (value.kind) {
      case OV_EXECUTORCH_INT:
        return nb::int_(value.integer);
      case OV_EXECUTORCH_BOOL:
        return nb::bool_(value.integer != 0);
      case OV_EXECUTORCH_DOUBLE:
        return nb::float_(value.real);
      default:
        break;
    }
    Layout& layout = layouts_[index];
    if (!layout.known || std::memcmp(layout.description, &value, kDescription) != 0) {
      describe(layout, value);
    }
    nb::object tensor = empty_strided_(*layout.arguments, **layout.keywords);
    if (value.nbytes != 0) {
      void* data = PyLong_AsVoidPtr(tensor.attr(names_.data_ptr)().ptr());
      std::memcpy(data, value.data, value.nbytes);
    }
    return tensor;
  }

  void describe(Layout& layout, const ov_executorch_value& value) {
    const size_t rank = static_cast<size_t>(value.rank);
    nb::list sizes, strides;
    std::vector<int64_t> dense(rank, 0);
    int64_t step = 1;
    for (size_t position = rank; position-- > 0;) {
      const size_t dim = value.dim_order[position];
      dense[dim] = step;
      step *= value.sizes[dim] > 1 ? value.sizes[dim] : 1;
    }
    for (size_t dim = 0; dim < rank; ++dim) {
      sizes.append(value.sizes[dim]);
      strides.append(dense[dim]);
    }
    layout.known = false;
    layout.keywords = nb::dict();
    layout.keywords["dtype"] = dtypes_[nb::int_(value.dtype)];
    layout.arguments = nb::make_tuple(sizes, strides);
    std::memcpy(layout.description, &value, kDescription);
    layout.known = true;
  }

  ExecuteFunction execute_;
  ov_executorch_runner* runner_;
  std::string method_;
  ov_executorch_value* inputs_;
  size_t num_inputs_;
  ov_executorch_value* outputs_;
  size_t num_outputs_;
  std::vector<bool> dense_;
  std::vector<Accepted> accepted_;
  std::vector<Layout> layouts_;
  nb::object tensor_type_;
  nb::object strided_;
  nb::object empty_strided_;
  nb::dict dtypes_;
  Names names_;
};

}  // namespace

NB_MODULE(_method_calls, module) {
  module.doc() = "The facade's per-call path: a call described as the last accepted one.";
  nb::class_<MethodCalls>(module, "MethodCalls")
      .def(nb::init<uintptr_t, uintptr_t, std::string, uintptr_t, size_t, uintptr_t, size_t,
                    std::vector<bool>, nb::object, nb::object, nb::object, nb::dict>(),
           nb::arg("execute"), nb::arg("runner"), nb::arg("method"), nb::arg("inputs"),
           nb::arg("num_inputs"), nb::arg("outputs"), nb::arg("num_outputs"), nb::arg("dense"),
           nb::arg("tensor_type"), nb::arg("strided"), nb::arg("empty_strided"),
           nb::arg("dtypes"))
      .def("accept", &MethodCalls::accept, nb::arg("values"))
      .def("forget", &MethodCalls::forget)
      .def("run", &MethodCalls::run, nb::arg("values").none())
      .def("execute_written", &MethodCalls::execute_written);
}
