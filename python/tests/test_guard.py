"""The guard's decisions (python/fmlp/guard.py) without torch: stand-in
classes for nn.Linear, Parameter, DTensor, PEFT's tuner layers, quantized
Linear classes and tensors, hooks and parametrizations. Each refused case
checks that the reason names the projection and says why; a negative
control shows that these tests fail for a guard that lets a LoRA stand-in
through. With PEFT's LoRA types given (fused LoRA), the LoRA stand-in's
states: each accepted one gives the Projection (base Linear, adapter terms)
fmlp computes, each refused one its reason."""
import unittest
from collections import OrderedDict
from unittest import mock

from fmlp import guard


class Tensor:
    """torch.Tensor's stand-in (dtype and device as strings)."""
    dtype = "float32"
    device = "cpu"


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


class Identity(Module):
    """nn.Identity's stand-in."""


class Dropout(Module):
    def __init__(self, p, training=True):
        super().__init__()
        self.p, self.training = p, training


class LoraLinear(Module):
    """PEFT's lora.Linear: the Linear as base_layer, per adapter lora_A,
    lora_B, lora_dropout and scaling, and the state PEFT's forward reads."""

    def __init__(self, base, adapters=("default",)):
        super().__init__()
        self.base_layer = base
        self.lora_A = {name: Linear() for name in adapters}
        self.lora_B = {name: Linear() for name in adapters}
        self.lora_dropout = {name: Identity() for name in adapters}
        self.scaling = {name: 2.0 for name in adapters}
        self.lora_variant, self.use_dora, self.lora_magnitude_vector = {}, {}, {}
        self.lora_bias = {name: False for name in adapters}
        self.merged_adapters = []
        self.disable_adapters = False
        self._active_adapter = list(adapters)

    @property
    def active_adapters(self):
        return self._active_adapter


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


# fmlp's casts (modules.ADAPTER_CASTS): float32 adapters over a 16-bit base.
CASTS = frozenset({("float32", "bfloat16"), ("float32", "float16")})
LORA = guard.LoraTypes(LoraLinear, Identity, Dropout, CASTS)


def decide_lora(projections, autocast=False, lora=LORA):
    """guard.projections with the LoRA types: the Projections or a reason."""
    return guard.projections(projections, Linear, (Tensor, Parameter), (DTensor,), lora,
                             autocast)


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

    def test_deleted_bias_is_refused(self):
        # del linear.bias: nn.Linear's own forward fails reading it.
        deleted = Linear()
        del deleted.bias
        self.refused(block(down_proj=deleted), "down_proj has no bias attribute (deleted)")

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

    def test_lora_layer_fuses_with_its_adapter_terms(self):
        lora = LoraLinear(Linear(bias=True), adapters=("a", "b"))
        lora.scaling["b"] = 0.5
        projections = block(down_proj=lora)
        found = decide_lora(projections)
        self.assertEqual(found[:2], [guard.Projection(p) for _, p in projections[:2]])
        self.assertIs(found[2].linear, lora.base_layer)
        self.assertEqual(found[2].adapters, (
            guard.Adapter("a", lora.lora_A["a"], lora.lora_B["a"], 2.0),
            guard.Adapter("b", lora.lora_A["b"], lora.lora_B["b"], 0.5)))
        self.assertIsNone(guard.why_not_fusable(block(down_proj=lora), Linear, (Tensor, Parameter),
                                                (), LORA))
        # Without PEFT's types (PEFT not imported), refused as any tuner layer.
        self.assertIn("PEFT tuner layer", decide(block(down_proj=lora)))

    def test_lora_adapters_skipped_and_disabled(self):
        lora = LoraLinear(Linear(), adapters=("a",))
        lora._active_adapter = ["a", "other"]  # PEFT skips an adapter the layer lacks
        self.assertEqual([a.name for a in decide_lora([("gate_proj", lora)])[0].adapters], ["a"])
        lora._active_adapter = "a"  # a str, as older PEFT keeps it
        self.assertEqual(len(decide_lora([("gate_proj", lora)])[0].adapters), 1)
        lora._active_adapter = []
        self.assertEqual(decide_lora([("gate_proj", lora)])[0].adapters, ())
        lora._active_adapter = ["a"]
        lora.disable_adapters = True  # PEFT computes the base layer alone
        self.assertEqual(decide_lora([("gate_proj", lora)])[0], guard.Projection(lora.base_layer))
        lora.merged_adapters = ["a"]
        reason = decide_lora([("gate_proj", lora)])
        self.assertIn("gate_proj is a PEFT LoRA layer with adapters disabled while ['a'] are "
                      "merged", reason)

    def test_lora_merged(self):
        lora = LoraLinear(Linear(), adapters=("a", "b"))
        lora.merged_adapters = ["a", "b"]
        self.assertEqual(decide_lora([("up_proj", lora)])[0], guard.Projection(lora.base_layer))
        lora.merged_adapters = ["a"]
        self.assertIn("up_proj is a PEFT LoRA layer with adapters ['a'] merged and active "
                      "adapters ['b'] not", decide_lora([("up_proj", lora)]))

    def refused_lora(self, lora, *phrases, autocast=False, types=LORA):
        reason = decide_lora(block(up_proj=lora), autocast, types)
        self.assertIsInstance(reason, str, "the guard let it through")
        self.assertTrue(reason.startswith("up_proj is a PEFT LoRA layer"), reason)
        for phrase in phrases:
            self.assertIn(phrase, reason)
        return reason

    def test_lora_variants_are_refused(self):
        for attribute, value, phrase in (("lora_variant", {"default": object()}, "LoRA variant"),
                                         ("use_dora", {"default": True}, "uses DoRA"),
                                         ("lora_magnitude_vector", {"default": Linear()},
                                          "uses DoRA")):
            with self.subTest(attribute):
                lora = LoraLinear(Linear())
                setattr(lora, attribute, value)
                self.refused_lora(lora, "adapter 'default'", phrase)

    def test_lora_dropout(self):
        lora = LoraLinear(Linear())
        for dropout, fuses in ((Dropout(0.1), False), (Dropout(0.1, training=False), True),
                               (Dropout(0.0), True), (Linear(), False)):
            with self.subTest(p=getattr(dropout, "p", None), training=dropout.__dict__.get(
                    "training")):
                lora.lora_dropout["default"] = dropout
                if fuses:
                    self.assertEqual(len(decide_lora(block(up_proj=lora))[1].adapters), 1)
                elif type(dropout) is Dropout:
                    self.refused_lora(lora, "dropout p = 0.1 in training mode")
                else:
                    self.refused_lora(lora, "has dropout", "torch.nn.Identity or torch.nn.Dropout")
        hooked = Identity()
        hooked._forward_hooks[0] = lambda *args: None
        lora.lora_dropout["default"] = hooked
        self.refused_lora(lora, "dropout has forward hooks")

    def test_lora_dtypes_and_devices(self):
        lora = LoraLinear(Linear())
        lora.base_layer.weight = Parameter()
        # float32 adapters over a 16-bit base (PEFT's default): cast, fused.
        for base in ("bfloat16", "float16"):
            lora.base_layer.weight.dtype = base
            self.assertEqual(len(decide_lora(block(up_proj=lora))[1].adapters), 1)
        # Without the casts (the module's cast_adapters False): refused.
        lora.base_layer.weight.dtype = "bfloat16"
        self.refused_lora(lora, "'default''s lora_A weight is float32 over a bfloat16 base weight",
                          "cast_adapters", "torch.autocast", types=LORA._replace(casts=frozenset()))
        # Adapters of a lower precision than the base: refused, but under
        # autocast, which casts both to its dtype: fused.
        lora.base_layer.weight.dtype = "float32"
        for part in ("lora_A", "lora_B"):
            getattr(lora, part)["default"].weight = Parameter()
            getattr(lora, part)["default"].weight.dtype = "bfloat16"
        self.refused_lora(lora, "'default''s lora_A weight is bfloat16 over a float32 base weight")
        self.assertEqual(len(decide_lora(block(up_proj=lora), autocast=True)[1].adapters), 1)
        lora.base_layer.weight.dtype = "float16"  # a 16-bit pair fmlp does not cast
        self.refused_lora(lora, "'default''s lora_A weight is bfloat16 over a float16 base weight")
        lora.base_layer.weight.dtype = "bfloat16"
        self.assertEqual(len(decide_lora(block(up_proj=lora))[1].adapters), 1)
        lora.lora_A["default"].weight.device = "cuda:1"
        self.refused_lora(lora, "lora_A weight is on cuda:1, the base weight on cpu",
                          autocast=True)

    def test_lora_parts_are_refused(self):
        lora = LoraLinear(Linear())
        lora.lora_B["default"] = Linear(bias=True)
        self.refused_lora(lora, "'default''s lora_B has a bias")
        lora = LoraLinear(Linear())
        lora.lora_bias["default"] = True
        self.refused_lora(lora, "has lora_bias")
        lora = LoraLinear(Linear())
        lora.lora_A["default"]._forward_pre_hooks[0] = lambda *args: None
        self.refused_lora(lora, "lora_A has forward-pre hooks")
        lora = LoraLinear(Linear())
        del lora.lora_B["default"]
        self.refused_lora(lora, "has lora_A but no lora_B")
        lora = LoraLinear(Linear())
        lora.scaling["default"] = Tensor()
        self.refused_lora(lora, "a scaling of type", "not a number")

    def test_lora_layer_itself_and_its_base(self):
        lora = LoraLinear(Linear())
        lora._backward_hooks[0] = lambda *args: None
        self.refused_lora(lora, "that has backward hooks")
        lora = LoraLinear(Linear())
        lora.forward = lambda x: x
        self.refused_lora(lora, "forward replaced on the instance")
        self.refused_lora(LoraLinear(Linear4bit()), "whose base_layer is", "Linear4bit")
        self.refused_lora(LoraLinear(LoraLinear(Linear())), "whose base_layer is",
                          "PEFT tuner layer")
        sharded = Linear()
        sharded.weight = DTensor(Parameter())
        self.refused_lora(LoraLinear(sharded), "sharded (tensor-parallel) weight")
        # A subclass of PEFT's LoRA Linear (bitsandbytes' LoRA layers) is
        # not the type fused: refused as a tuner layer.
        subclass = type("Linear8bitLt", (LoraLinear,), {})(Linear())
        self.assertIn("PEFT tuner layer", decide_lora(block(up_proj=subclass)))

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
