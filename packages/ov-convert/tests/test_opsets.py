"""The converter refuses a model that keeps an operation of no OpenVINO opset."""

import openvino as ov
import pytest
import torch
from openvino import opset13

from ov_convert import ConversionError
from ov_convert.convert import check_public_opsets, operations


class Leftover(ov.Op):  # type: ignore[misc]
    """Stands for an internal frontend operation (``SliceAssign``) that reached the model."""

    def __init__(self, inputs=None):
        super().__init__(self, inputs)
        if inputs:
            self.constructor_validate_and_infer_types()

    def validate_and_infer_types(self):
        self.set_output_type(0, self.get_input_element_type(0), self.get_input_partial_shape(0))

    def clone_with_new_inputs(self, new_inputs):
        return Leftover(new_inputs)

    def get_type_info(self):
        return ov.DiscreteTypeInfo("Leftover", "internal")

    def visit_attributes(self, visitor):
        return True


def test_every_opset_operation_passes():
    x = opset13.parameter([2], ov.Type.f32)
    model = ov.Model([opset13.relu(x)], [x])
    check_public_opsets(model)
    assert {op.get_type_name() for op in operations(model)} == {"Parameter", "Relu", "Result"}


def test_an_internal_operation_is_named_and_refused():
    x = opset13.parameter([2], ov.Type.f32)
    leftover = Leftover([x])
    leftover.set_friendly_name("aten_slice_scatter_default/aten.slice_scatter.default/SliceAssign")
    with pytest.raises(ConversionError, match=r"aten_slice_scatter_default/.*version internal"):
        check_public_opsets(ov.Model([leftover.output(0)], [x]))


def test_operations_inside_control_flow_are_checked():
    class Branches(torch.nn.Module):
        def forward(self, x):
            return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))

    model = ov.convert_model(torch.export.export(Branches(), (torch.randn(3),)))
    names = {op.get_type_name() for op in operations(model)}
    assert {"If", "Sin", "Cos"} <= names
