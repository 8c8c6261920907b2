"""The guard's decisions (python/fmlp/guard.py) without torch: stand-in
classes for nn.Linear, Parameter, DTensor, PEFT's tuner layers, quantized
Linear classes and tensors, hooks and parametrizations. Each refused case
checks that the reason names the projection and says why; a negative
control shows that these tests fail for a guard that lets a LoRA stand-in
through."""
import unittest
from collections import OrderedDict
from unittest import mock

from fmlp import guard


class Tensor:
    """torch.Tensor's stand-in."""


class Parameter(Tensor):
    """nn.Parameter's stand-in (a subclass of Tensor, as in torch)."""


class QuantizedTensor(Tensor):
    """A tensor subclass holding packed data (torchao's, bitsandbytes' Params4bit)."""


class DTensor(Tensor):
    def __init__(self, local):
        self._local_tensor = local


class Module:
    """nn.Module's stand-in: the four hook dictionaries, empty."""

    def __init__(self):
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()
        self._backward_hooks = OrderedDict()
        self._backward_pre_hooks = OrderedDict()

    def forward(self, x):
        raise NotImplementedError


class Linear(Module):
    def __init__(self, bias=False):
        super().__init__()
        self.weight = Parameter()
        self.bias = Parameter() if bias else None


class Linear4bit(Linear):
    """A quantized subclass (bitsandbytes' Linear4bit)."""


class LoraLinear(Module):
    """PEFT's lora.Linear: the Linear as base_layer, lora_A and lora_B."""

    def __init__(self, base):
        super().__init__()
        self.base_layer = base
        self.lora_A = {"default": Linear()}
        self.lora_B = {"default": Linear()}

    @property
    def active_adapters(self):
        return ["default"]


class ParametrizedLinear(Linear):
    """What torch.nn.utils.parametrize makes of a Linear: a generated
    subclass with a `parametrizations` ModuleDict."""

    def __init__(self):
        super().__init__()
        self.parametrizations = {"weight": [object()]}


class Conv(Module):
    """A module the guard knows nothing about."""

    def __init__(self):
        super().__init__()
        self.weight = Parameter()


def decide(projections, sharded=(DTensor,)):
    return guard.why_not_fusable(projections, Linear, (Tensor, Parameter), sharded)


def block(**replace):
    """gate_proj, up_proj, down_proj: plain Linears unless replaced."""
    names = ("gate_proj", "up_proj", "down_proj")
    return [(n, replace.get(n) or Linear()) for n in names]


class GuardTest(unittest.TestCase):
    def refused(self, projections, *phrases, **kwargs):
        reason = decide(projections, **kwargs)
        self.assertIsNotNone(reason, "the guard let it through")
        for phrase in phrases:
            self.assertIn(phrase, reason)
        return reason

    def test_plain_linears_fuse(self):
        self.assertIsNone(decide(block()))
        self.assertIsNone(decide([(n, Linear(bias=True)) for n in ("gate_proj", "up_proj", "down_proj")]))
        self.assertIsNone(decide([("gate_up_proj", Linear()), ("down_proj", Linear())]))

    def test_subclass_is_refused(self):
        self.refused(block(up_proj=Linear4bit()), "up_proj is", "Linear4bit", "not torch.nn.Linear")

    def test_peft_tuner_layer_is_refused(self):
        reason = self.refused(block(down_proj=LoraLinear(Linear())), "down_proj is",
                              "LoraLinear", "PEFT tuner layer", "['default']", "bypass")
        self.assertTrue(reason.startswith("down_proj "), reason)

    def test_the_first_failing_projection_is_named(self):
        self.refused(block(gate_proj=LoraLinear(Linear()), down_proj=Linear4bit()), "gate_proj is")
        self.refused([("gate_up_proj", LoraLinear(Linear())), ("down_proj", Linear())],
                     "gate_up_proj is", "PEFT")

    def test_hooks_are_refused(self):
        for attribute, what in guard.HOOKS:
            with self.subTest(attribute):
                hooked = Linear()
                getattr(hooked, attribute)[0] = lambda *args: None
                self.refused(block(up_proj=hooked), f"up_proj has {what}")

    def test_forward_replaced_on_the_instance_is_refused(self):
        replaced = Linear()
        replaced.forward = lambda x: x  # as accelerate's add_hook_to_module does
        self.refused(block(gate_proj=replaced), "gate_proj has its forward replaced")

    def test_parametrization_is_refused(self):
        self.refused(block(gate_proj=ParametrizedLinear()), "gate_proj has parametrized weights",
                     "parametrize")

    def test_unknown_module_is_refused(self):
        self.refused(block(down_proj=Conv()), "down_proj is", "Conv", "not torch.nn.Linear")
        self.refused(block(down_proj=object()), "down_proj is", "builtins.object")

    def test_missing_weight_is_refused(self):
        empty = Linear()
        empty.weight = None
        self.refused(block(up_proj=empty), "up_proj has no weight")

    def test_tensor_subclass_weight_is_refused(self):
        quantized = Linear()
        quantized.weight = QuantizedTensor()
        self.refused(block(gate_proj=quantized), "gate_proj has a weight of type",
                     "QuantizedTensor", "not a plain tensor")
        biased = Linear(bias=True)
        biased.bias = QuantizedTensor()
        self.refused(block(down_proj=biased), "down_proj has a bias of type", "QuantizedTensor")

    def test_plain_tensor_weight_fuses(self):
        # A Parameter's data reassigned as a tensor stays a plain tensor.
        plain = Linear()
        plain.weight = Tensor()
        self.assertIsNone(decide(block(gate_proj=plain)))

    def test_dtensor_weight_is_allowed(self):
        sharded = [(n, Linear(bias=True)) for n in ("gate_proj", "up_proj", "down_proj")]
        for _, linear in sharded:
            linear.weight, linear.bias = DTensor(Parameter()), DTensor(Tensor())
        self.assertIsNone(decide(sharded))

    def test_tensor_parallel_hooks_are_allowed_on_sharded_weights(self):
        # parallelize_module's styles hook the Linear (distribute_module's
        # input and output redistributions); parallel.py does their work.
        def redistribute(*args):
            return None
        redistribute.__module__ = guard.TENSOR_PARALLEL_HOOKS

        def user_hook(*args):
            return None
        sharded = Linear()
        sharded.weight = DTensor(Parameter())
        sharded._forward_pre_hooks[0] = redistribute
        sharded._forward_hooks[1] = redistribute
        self.assertIsNone(decide(block(gate_proj=sharded)))
        sharded._forward_hooks[2] = user_hook
        self.refused(block(gate_proj=sharded), "gate_proj has forward hooks")
        # On a plain weight the same hooks are refused: nothing redistributes.
        plain = Linear()
        plain._forward_hooks[0] = redistribute
        self.refused(block(gate_proj=plain), "gate_proj has forward hooks")

    def test_dtensor_of_a_tensor_subclass_is_refused(self):
        linear = Linear()
        linear.weight = DTensor(QuantizedTensor())
        self.refused(block(up_proj=linear), "up_proj has a sharded weight whose local shard is a",
                     "QuantizedTensor")

    def test_dtensor_without_distributed_support_is_refused(self):
        # torch without torch.distributed: no sharded types are passed.
        linear = Linear()
        linear.weight = DTensor(Parameter())
        self.refused(block(up_proj=linear), "up_proj has a weight of type", "DTensor", sharded=())

    def test_control_a_guard_that_passes_lora_fails_these_tests(self):
        # The same check as test_peft_tuner_layer_is_refused, against a
        # guard whose module check says "ok" for everything: it must fail.
        with mock.patch.object(guard, "why_not_plain_linear", lambda *args, **kwargs: None):
            with self.assertRaises(AssertionError):
                self.test_peft_tuner_layer_is_refused()
        # And a guard that looks only at the type name (a LoRA stand-in
        # named Linear) fails too.
        disguised = type("Linear", (LoraLinear,), {})(Linear())
        self.refused(block(gate_proj=disguised), "gate_proj is", "PEFT tuner layer")


if __name__ == "__main__":
    unittest.main()
