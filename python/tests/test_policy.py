"""Memory policies (python/fmlp/policy.py), torch-free: the precedence of
call, module, scope and default, field by field; scopes nested and
thread-local; bad values refused with what was wrong."""
import threading
import unittest

from fmlp import policy
from fmlp.policy import MemoryPolicy


class PolicyTest(unittest.TestCase):
    def test_default_without_any_level(self):
        self.assertEqual(policy.resolve(), policy.DEFAULT)
        self.assertIsNotNone(policy.DEFAULT.save)
        self.assertIsNotNone(policy.DEFAULT.chunk_tokens)

    def test_call_over_module_over_scope_over_default(self):
        other = next(s for s in policy.SAVES if s != policy.DEFAULT.save)
        third = next(s for s in policy.SAVES if s not in (other, policy.DEFAULT.save))
        with policy.memory_policy(save=other, chunk_tokens=512):
            self.assertEqual(policy.resolve(), MemoryPolicy(other, 512))
            module = MemoryPolicy(save=third)
            # The module's save wins; its unset chunk comes from the scope.
            self.assertEqual(policy.resolve(module=module), MemoryPolicy(third, 512))
            call = MemoryPolicy(chunk_tokens=0)
            self.assertEqual(policy.resolve(call=call, module=module), MemoryPolicy(third, 0))
        self.assertEqual(policy.resolve(), policy.DEFAULT)

    def test_scopes_nest_field_by_field_and_unwind(self):
        with policy.memory_policy(save="x") as outer:
            self.assertEqual(outer, MemoryPolicy("x", policy.DEFAULT.chunk_tokens))
            with policy.memory_policy(chunk_tokens=64) as inner:
                self.assertEqual(inner, MemoryPolicy("x", 64))
                self.assertEqual(policy.resolve(), MemoryPolicy("x", 64))
            self.assertEqual(policy.resolve(), outer)
        self.assertEqual(policy.resolve(), policy.DEFAULT)

    def test_a_scope_unwinds_on_an_exception(self):
        with self.assertRaises(KeyError):
            with policy.memory_policy(save="x"):
                raise KeyError("inside")
        self.assertEqual(policy.resolve(), policy.DEFAULT)

    def test_scopes_are_per_thread(self):
        seen = {}
        entered, release = threading.Event(), threading.Event()

        def other_thread():
            entered.wait()
            seen["other"] = policy.resolve()
            release.set()

        thread = threading.Thread(target=other_thread)
        thread.start()
        with policy.memory_policy(save="x", chunk_tokens=8):
            entered.set()
            release.wait(timeout=10)
            seen["here"] = policy.resolve()
        thread.join()
        self.assertEqual(seen["here"], MemoryPolicy("x", 8))
        self.assertEqual(seen["other"], policy.DEFAULT)

    def test_bad_values_are_refused_naming_them(self):
        with self.assertRaisesRegex(ValueError, "save must be one of .*'all'"):
            MemoryPolicy(save="all")
        for bad in (-1, 1.5, True, "64"):
            with self.assertRaisesRegex(ValueError, "chunk_tokens must be an int >= 0"):
                MemoryPolicy(chunk_tokens=bad)
        with self.assertRaisesRegex(ValueError, "save must be one of"):
            with policy.memory_policy(save="AGU"):
                pass
        self.assertEqual(policy.resolve(), policy.DEFAULT)


if __name__ == "__main__":
    unittest.main()
