# lit configuration that runs fmlp's GoogleTest binaries (*Tests) as lit tests.
import lit.formats

config.name = "fmlp-unit"
config.test_format = lit.formats.GoogleTest(".", "Tests")
config.test_source_root = config.fmlp_unit_dir
config.test_exec_root = config.fmlp_unit_dir
